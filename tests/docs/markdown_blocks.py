"""Reads the fenced code blocks of a Markdown file and splits each shell block
into command groups with the output the document shows for them.

The rules a document follows (tests/docs/README.md says the same for writers):

* Every fence names its language. `sh`, `bash`, `shell` and `console` blocks
  are commands; any other language (`text`, `json`, `yaml`, ...) is not run.
  A fence without a language is an error: nothing is left out silently.
* An HTML comment on the line before the fence (blank lines between allowed)
  tells the test what to do with a command block:
    <!-- doc-test: skip (why it cannot run in a test) -->   not run; the reason is required
    <!-- doc-test: serve -->   the block starts the demo host (the test starts it in the
                               background on a loopback port of its own)
* In a command block, lines that are whole comments (`# ...`, outside quotes
  and here-documents) are the output of the commands above them, back to the
  previous output or the start of the block: `# text` shows the line `text`,
  a lone `#` an empty line. An output line ending in `\\` continues on the next
  comment line, whose leading blanks are dropped (a space that the output has
  at the wrap is written before the `\\`). Comments after a command on the same
  line are plain shell comments. Commands after the last output, or in a block
  showing no output, must succeed; their output is not compared.
"""
import dataclasses
import re

COMMAND_LANGUAGES = {"sh", "bash", "shell", "console"}
_FENCE = re.compile(r"^(```+|~~~+)\s*(\S*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->$")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


class DocError(Exception):
    """A document that breaks the rules above; the message names file and line."""


@dataclasses.dataclass
class Directive:
    kind: str        # "skip" or "serve"
    reason: str = ""


@dataclasses.dataclass
class Group:
    line: int                 # first line of the commands in the file (1-based)
    commands: str             # the shell text, as written
    expected: list | None     # output lines shown, or None when the doc shows none
    expected_line: int = 0    # first line of the shown output


@dataclasses.dataclass
class Block:
    path: str
    line: int                 # line of the opening fence (1-based)
    language: str
    text: str
    directive: Directive | None

    @property
    def is_command(self):
        return self.language in COMMAND_LANGUAGES

    def where(self):
        return f"{self.path}:{self.line}"


def parse_directive(text, where):
    """A Directive from the text after `doc-test:`."""
    m = re.fullmatch(r"skip\s*\((.+)\)", text)
    if m and m.group(1).strip():
        return Directive("skip", m.group(1).strip())
    if text == "serve":
        return Directive("serve")
    raise DocError(f"{where}: unknown doc-test directive {text!r}: "
                   "use `skip (reason)` or `serve`")


def read_blocks(path, text):
    """Every fenced block of a Markdown text, in order."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, language, start = m.group(1), m.group(2), i
        directive = _directive_before(lines, start, path)
        end = start + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        if end == len(lines):
            raise DocError(f"{path}:{start + 1}: the code block is never closed")
        if not language:
            raise DocError(f"{path}:{start + 1}: the code block names no language: "
                           "write ```sh for commands, ```text (or the format) otherwise")
        if directive and language not in COMMAND_LANGUAGES:
            raise DocError(f"{path}:{start + 1}: a doc-test directive on a {language} block")
        blocks.append(Block(path, start + 1, language, "\n".join(lines[start + 1:end]),
                            directive))
        i = end + 1
    return blocks


def _directive_before(lines, fence_index, path):
    j = fence_index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0:
        return None
    m = _DIRECTIVE.match(lines[j].strip())
    return parse_directive(m.group(1), f"{path}:{j + 1}") if m else None


class _ShellScanner:
    """Tracks quotes and here-documents line by line, enough to tell a whole-line
    comment from a line inside a quoted string or a here-document."""

    def __init__(self):
        self.quote = None          # None, "'" or '"'
        self.heredocs = []         # terminators still to come, in order

    def at_top_level(self):
        return self.quote is None and not self.heredocs

    def feed(self, line):
        if self.heredocs:
            if line.strip() == self.heredocs[0]:
                self.heredocs.pop(0)
            return
        i = 0
        while i < len(line):
            c = line[i]
            if self.quote == "'":
                if c == "'":
                    self.quote = None
            elif c == "\\":
                i += 1
            elif self.quote == '"':
                if c == '"':
                    self.quote = None
            elif c in "'\"":
                self.quote = c
            elif c == "#" and (i == 0 or line[i - 1] in " \t;|&("):
                break
            elif line.startswith("<<", i) and not line.startswith("<<<", i):
                m = _HEREDOC.match(line, i)
                if m:
                    self.heredocs.append(m.group(2))
                    i = m.end()
                    continue
            i += 1


def split_groups(block):
    """The command groups of a command block with the output shown for each."""
    groups, commands, first = [], [], None
    expected, expected_start = None, 0
    scanner = _ShellScanner()
    lines = block.text.split("\n")

    def close():
        nonlocal commands, first, expected
        if any(c.strip() for c in commands):
            groups.append(Group(first, "\n".join(commands) + "\n", expected, expected_start))
        elif expected is not None:
            raise DocError(f"{block.path}:{expected_start}: output shown with no command before it")
        commands, first, expected = [], None, None

    for n, line in enumerate(lines):
        lineno = block.line + 1 + n
        is_output = scanner.at_top_level() and line.lstrip().startswith("#")
        if is_output:
            if expected is None:
                expected, expected_start = [], lineno
            expected.append(line.lstrip()[1:])
            continue
        if expected is not None:
            close()
        if first is None and line.strip():
            first = lineno
        if first is not None:
            commands.append(line)
        scanner.feed(line)
    close()
    if not scanner.at_top_level():
        raise DocError(f"{block.where()}: the block ends inside a quote or a here-document")
    for g in groups:
        if g.expected is not None:
            g.expected = _join_output(g.expected, block.path, g.expected_line)
    return groups


def _join_output(raw, path, first_line):
    """Output lines from the comment texts (after `#`): drop the one space after
    `#`, join lines wrapped with a trailing backslash."""
    out, pending = [], None
    for k, text in enumerate(raw):
        if text and not text.startswith(" "):
            raise DocError(f"{path}:{first_line + k}: write output as `# text` (a space after #)")
        text = text[1:]
        if pending is not None:
            text = pending + text.lstrip()
            pending = None
        if text.endswith("\\"):
            pending = text[:-1]
            continue
        out.append(text)
    if pending is not None:
        raise DocError(f"{path}:{first_line + len(raw) - 1}: the output ends with a continuation `\\`")
    return out
