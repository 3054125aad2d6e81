#!/usr/bin/env python3
"""The rules of markdown_blocks.py on small documents: what is a command
block, what is shown output, how wrapped output joins, and that a block
without a language or with an unknown directive is an error."""
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from markdown_blocks import DocError, read_blocks, split_groups  # noqa: E402


def groups_of(text):
    blocks = [b for b in read_blocks("doc.md", text) if b.is_command]
    return [g for b in blocks for g in split_groups(b)]


class BlockRules(unittest.TestCase):
    def test_a_fence_without_language_is_an_error(self):
        with self.assertRaisesRegex(DocError, r"doc.md:3: the code block names no language"):
            read_blocks("doc.md", "text\n\n```\nls\n```\n")

    def test_only_shell_languages_are_commands(self):
        blocks = read_blocks("doc.md", "```text\nls\n```\n```sh\nls\n```\n```yaml\na: 1\n```\n")
        self.assertEqual([b.is_command for b in blocks], [False, True, False])

    def test_directives_before_the_fence(self):
        blocks = read_blocks("doc.md", "<!-- doc-test: skip (needs a cluster) -->\n\n```sh\nkubectl get pods\n```\n"
                                       "<!-- doc-test: serve -->\n```sh\nrun\n```\n```sh\nls\n```\n")
        self.assertEqual(blocks[0].directive.kind, "skip")
        self.assertEqual(blocks[0].directive.reason, "needs a cluster")
        self.assertEqual(blocks[1].directive.kind, "serve")
        self.assertIsNone(blocks[2].directive)

    def test_a_skip_needs_a_reason_and_unknown_directives_fail(self):
        with self.assertRaisesRegex(DocError, "unknown doc-test directive"):
            read_blocks("doc.md", "<!-- doc-test: skip -->\n```sh\nls\n```\n")
        with self.assertRaisesRegex(DocError, "unknown doc-test directive"):
            read_blocks("doc.md", "<!-- doc-test: ignore -->\n```sh\nls\n```\n")

    def test_an_unclosed_block_is_an_error(self):
        with self.assertRaisesRegex(DocError, "never closed"):
            read_blocks("doc.md", "```sh\nls\n")


class OutputRules(unittest.TestCase):
    def test_comment_lines_are_the_output_of_the_commands_above(self):
        g = groups_of("```sh\nA=1\necho $A\n# 1\n#\necho b   # an inline comment\n```\n")
        self.assertEqual(len(g), 2)
        self.assertEqual(g[0].commands, "A=1\necho $A\n")
        self.assertEqual(g[0].expected, ["1", ""])
        self.assertEqual(g[0].line, 2)
        self.assertEqual(g[1].commands, "echo b   # an inline comment\n")
        self.assertIsNone(g[1].expected)

    def test_a_trailing_backslash_joins_the_next_line_without_its_indent(self):
        g = groups_of('```sh\nx\n# {"a":1,\\\n#  "b":2}\n# [1, \\\n#   2]\n```\n')
        self.assertEqual(g[0].expected, ['{"a":1,"b":2}', "[1, 2]"])

    def test_hash_lines_in_heredocs_and_quotes_are_commands(self):
        text = ("```sh\ncat > f.yaml <<'YAML'\n# a YAML comment\nYAML\npython3 -c '\n"
                "# a Python comment\nprint(1)'\n# 1\n```\n")
        g = groups_of(text)
        self.assertEqual(len(g), 1)
        self.assertIn("# a YAML comment", g[0].commands)
        self.assertIn("# a Python comment", g[0].commands)
        self.assertEqual(g[0].expected, ["1"])

    def test_output_must_have_a_space_after_the_hash(self):
        with self.assertRaisesRegex(DocError, "a space after #"):
            groups_of("```sh\nx\n#1\n```\n")

    def test_output_cannot_end_in_a_continuation(self):
        with self.assertRaisesRegex(DocError, "continuation"):
            groups_of("```sh\nx\n# a\\\n```\n")

    def test_a_block_ending_inside_a_quote_is_an_error(self):
        with self.assertRaisesRegex(DocError, "inside a quote"):
            groups_of("```sh\necho 'a\n```\n")


if __name__ == "__main__":
    unittest.main()
