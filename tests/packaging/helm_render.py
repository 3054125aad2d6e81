#!/usr/bin/env python3
"""A renderer for the subset of Helm's Go templates the hami-scheduler chart
uses (packaging/kubernetes/helm/README.md lists it), so the chart is rendered
and checked where Helm is not installed. Anything outside the subset raises
TemplateError instead of rendering wrongly.

Supported: text with {{ }} actions and {{- / -}} whitespace trimming;
{{/* comments */}}; {{ define "n" }}…{{ end }} (in _helpers.tpl);
{{ if PIPELINE }}…{{ else }}…{{ end }}; pipelines of
  .Values.a.b  .Release.Name  .Release.Namespace  .Chart.Name  .Chart.AppVersion
  "string"  .  include "n" .  toYaml X  .Files.Get "path"  not X  eq A B
  | nindent N  | indent N  | quote  | toYaml
"""
import pathlib
import re
import shlex

import yaml


class TemplateError(Exception):
    pass


_ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)


def _tokens(text):
    """[('text', s) | ('action', s)] with trim markers applied."""
    out, pos = [], 0
    for m in _ACTION.finditer(text):
        out.append(["text", text[pos:m.start()]])
        if m.group(1) == "-" and out[-1][0] == "text":
            out[-1][1] = out[-1][1].rstrip()
        out.append(["action", m.group(2), m.group(3) == "-"])
        pos = m.end()
    out.append(["text", text[pos:]])
    result, trim_next = [], False
    for tok in out:
        if tok[0] == "text":
            s = tok[1].lstrip() if trim_next else tok[1]
            result.append(("text", s))
            trim_next = False
        else:
            result.append(("action", tok[1]))
            trim_next = tok[2]
    return result


def _parse(tokens, i, stop):
    """A node list up to one of the keywords `stop` (("__eof__",): the end
    of the text); returns (nodes, index after the stopper, stopper)."""
    nodes = []
    while i < len(tokens):
        kind, value = tokens[i]
        i += 1
        if kind == "text":
            nodes.append(("text", value))
            continue
        if value.startswith("/*"):
            if not value.endswith("*/"):
                raise TemplateError(f"unterminated comment: {value}")
            continue
        word = value.split(None, 1)[0] if value else ""
        if word in stop:
            return nodes, i, word
        if word == "if":
            body, i, stopper = _parse(tokens, i, ("else", "end"))
            other = []
            if stopper == "else":
                other, i, _ = _parse(tokens, i, ("end",))
            nodes.append(("if", value[2:].strip(), body, other))
        elif word == "define":
            name = shlex.split(value)[1]
            body, i, _ = _parse(tokens, i, ("end",))
            nodes.append(("define", name, body))
        elif word in ("range", "with", "template", "block", "else", "end"):
            raise TemplateError(f"'{word}' is outside the renderer's subset: {{{{ {value} }}}}")
        else:
            nodes.append(("expr", value))
    if stop != ("__eof__",):
        raise TemplateError("missing {{ end }}")
    return nodes, i, None


class Chart:
    def __init__(self, chart_dir, release_name="hami-scheduler", namespace="kube-system",
                 values=None):
        self.dir = pathlib.Path(chart_dir)
        self.meta = yaml.safe_load((self.dir / "Chart.yaml").read_text())
        self.values = yaml.safe_load((self.dir / "values.yaml").read_text()) or {}
        if values:
            _merge(self.values, values)
        self.release = {"Name": release_name, "Namespace": namespace}
        self.defines = {}
        for helper in sorted((self.dir / "templates").glob("_*.tpl")):
            nodes, _, _ = _parse(_tokens(helper.read_text()), 0, ("__eof__",))
            for node in nodes:
                if node[0] == "define":
                    self.defines[node[1]] = node[2]

    def render_all(self):
        """{template file name: rendered text} for every templates/*.yaml."""
        out = {}
        for path in sorted((self.dir / "templates").glob("*.yaml")):
            nodes, _, _ = _parse(_tokens(path.read_text()), 0, ("__eof__",))
            out[path.name] = self._render(nodes)
        return out

    # -- evaluation --
    def _render(self, nodes):
        parts = []
        for node in nodes:
            if node[0] == "text":
                parts.append(node[1])
            elif node[0] == "expr":
                parts.append(_text(self._pipeline(node[1])))
            elif node[0] == "if":
                parts.append(self._render(node[2] if _truthy(self._pipeline(node[1])) else node[3]))
            elif node[0] == "define":
                self.defines[node[1]] = node[2]
        return "".join(parts)

    def _pipeline(self, text):
        commands = [c.strip() for c in _split_pipes(text)]
        value = self._command(shlex.split(commands[0], posix=False), None, piped=False)
        for command in commands[1:]:
            value = self._command(shlex.split(command, posix=False), value, piped=True)
        return value

    def _command(self, words, piped_value, piped):
        head, args = words[0], words[1:]
        if not piped and not args and not head.isidentifier():
            return self._operand(head)
        if head == ".Files.Get":
            return (self.dir / _unquote(args[0])).read_text()
        operands = [self._operand(a) for a in args]
        if piped:
            operands.append(piped_value)
        if head == "include":
            name = operands[0]
            if name not in self.defines:
                raise TemplateError(f"include of undefined template {name!r}")
            return self._render(self.defines[name]).strip("\n")
        if head == "toYaml":
            return yaml.safe_dump(operands[0], default_flow_style=False, sort_keys=False).rstrip("\n")
        if head == "nindent":
            return "\n" + _indent(int(operands[0]), _text(operands[1]))
        if head == "indent":
            return _indent(int(operands[0]), _text(operands[1]))
        if head == "quote":
            return '"' + _text(operands[0]).replace("\\", "\\\\").replace('"', '\\"') + '"'
        if head == "not":
            return not _truthy(operands[0])
        if head == "eq":
            return operands[0] == operands[1]
        raise TemplateError(f"function {head!r} is outside the renderer's subset")

    def _operand(self, word):
        if word == ".":
            return self
        if word.startswith('"'):
            return _unquote(word)
        if re.fullmatch(r"-?[0-9]+", word):
            return int(word)
        if word.startswith(".Values"):
            value = self.values
            for key in word.split(".")[2:]:
                if not isinstance(value, dict) or key not in value:
                    raise TemplateError(f"{word}: no such value")
                value = value[key]
            return value
        if word == ".Release.Name":
            return self.release["Name"]
        if word == ".Release.Namespace":
            return self.release["Namespace"]
        if word == ".Chart.Name":
            return self.meta["name"]
        if word == ".Chart.AppVersion":
            return self.meta["appVersion"]
        raise TemplateError(f"operand {word!r} is outside the renderer's subset")


def _split_pipes(text):
    parts, current, quoted = [], "", False
    for c in text:
        if c == '"':
            quoted = not quoted
        if c == "|" and not quoted:
            parts.append(current)
            current = ""
        else:
            current += c
    parts.append(current)
    return parts


def _unquote(word):
    if len(word) < 2 or word[0] != '"' or word[-1] != '"':
        raise TemplateError(f"expected a quoted string, got {word}")
    return word[1:-1]


def _indent(n, text):
    pad = " " * n
    return "\n".join(pad + line if line else line for line in text.split("\n"))


def _truthy(value):
    return bool(value)


def _text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _merge(base, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
