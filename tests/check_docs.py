#!/usr/bin/env python3
"""README.md and docs/*.md stay short, linked and whole.

README.md has at most 400 lines, a contents list that links each of its `##`
sections, and the example-output markers with a fenced block between them;
every relative link in README.md and docs/*.md names a file that exists (and,
for a Markdown page, a heading that exists, where the link names one); every
docs/*.md page is linked from README.md; every `dlcbench` command line in
their fenced blocks splits into words.

    tests/check_docs.py [ROOT]                    exit 1 and one line per problem
    tests/check_docs.py --print-commands [ROOT]   the commands, a JSON list of argument vectors
    tests/check_docs.py --dlcbench BIN [ROOT]     also: each command parses (BIN with DLCBENCH_PARSE_ONLY=1)

--print-commands prints every command line of the fenced blocks that starts
with `dlcbench `, `build/dlcbench ` or `./build/dlcbench ` (after a `$ `
prompt and the wrappers scripts/with-docker.sh, scripts/with-slurm.sh and
sudo), lines ending in a backslash joined, split as a shell would (shlex) and
cut at the first shell operator (`|`, `>`, `&&`, `;`, ...), one per line,
each once. It runs none of them.

--dlcbench BIN hands each command's words to BIN with DLCBENCH_PARSE_ONLY=1,
which parses and checks the options and runs no command: a command that no
longer parses (a renamed option, a value out of range) is a problem.
"""
import json
import pathlib
import re
import os
import shlex
import subprocess
import sys

MAX_README_LINES = 400
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
CODE_SPAN = re.compile(r"`[^`]*`")
COMMENT = re.compile(r"<!--.*?-->", re.S)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXAMPLE_BEGIN = "<!-- example-output:begin -->"
EXAMPLE_END = "<!-- example-output:end -->"
PROGRAMS = ("dlcbench", "build/dlcbench", "./build/dlcbench")
WRAPPERS = ("scripts/with-docker.sh", "./scripts/with-docker.sh", "scripts/with-slurm.sh",
            "./scripts/with-slurm.sh", "sudo")
OPERATORS = {"|", "||", "&&", ";", "&", "|&", ";;"}
REDIRECT = re.compile(r"^(\d*|&)(>>?|<)(&?[\w./-]*)$")


def split_fences(text):
    """The page's lines as (line number, text, inside a fenced block) triples."""
    rows = []
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                rows.append((number, line, True))
                continue
            rows.append((number, line, False))
        else:
            rows.append((number, line, True))
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip()[len(match.group(1)):].strip():
                fence = None
    return rows


def prose(rows):
    """The page with its fenced blocks, code spans and comments blanked, newlines kept."""
    text = "\n".join("" if fenced else line for _, line, fenced in rows)
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    return CODE_SPAN.sub(blank, COMMENT.sub(blank, text))


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(rows):
    seen = {}
    result = set()
    for _, line, fenced in rows:
        match = None if fenced else HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def links(rows):
    """(line number, target) of every link of the page, outside code."""
    text = prose(rows)
    found = []
    for pattern in (INLINE_LINK, REFERENCE_LINK):
        for match in pattern.finditer(text):
            found.append((text.count("\n", 0, match.start(1)) + 1, match.group(1)))
    return sorted(found)


def commands(rows):
    """(line number, command line) of each line of a fenced block, backslash continuations joined."""
    found = []
    pending, start = None, 0
    for number, line, fenced in rows:
        if not fenced or FENCE.match(line):
            if pending is not None:
                found.append((start, pending))
            pending = None
            continue
        if pending is None:
            pending, start = "", number
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        found.append((start, pending + stripped))
        pending = None
    if pending is not None:
        found.append((start, pending))
    return found


def argument_vector(line):
    """The words of a dlcbench command line, or None when the line is no dlcbench command."""
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:].lstrip()
    words = line.split()
    while words and words[0] in WRAPPERS:
        words.pop(0)
    if not words or words[0] not in PROGRAMS:
        return None
    line = line[line.index(words[0]):]
    argv = []
    for word in shlex.split(line, comments=True):
        if word in OPERATORS or REDIRECT.match(word):
            break
        if word.endswith(";") or word.endswith("&&"):
            word = word.rstrip(";&")
            if word:
                argv.append(word)
            break
        argv.append(word)
    return argv


def example_problems(rows):
    """The example output is the answer a run prints, as scripts/readme-example.sh
    writes it: a case's table (environment, figure, overhead, verdict), its
    details line, every line within the answer's 100 columns, 30 lines at most."""
    problems = []
    lines = [line for _, line in rows]
    if len(lines) > 31:  # the report's "run ID (status)" line and the answer's 30
        problems.append(f"README.md: the example output has {len(lines)} lines, more than the answer's 30")
    for number, line in rows:
        if len(line) > 100:
            problems.append(f"README.md:{number}: the example output's line is {len(line)} columns, more than 100")
    if not any(re.match(r"^  environment  .*overhead .*verdict$", line) for line in lines):
        problems.append("README.md: the example output has no answer table (environment ... overhead ... verdict): "
                        "write it with scripts/readme-example.sh results/<run-id>")
    if not any(line.startswith("details: dlcbench report ") for line in lines):
        problems.append("README.md: the example output has no details line: write it with scripts/readme-example.sh")
    return problems


def parse_problem(binary, vector):
    """Why `binary` does not parse the command's words, or None."""
    env = dict(os.environ, DLCBENCH_PARSE_ONLY="1")
    done = subprocess.run([binary] + vector[1:], env=env, capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip().splitlines()
    return said[0] if said else f"exit status {done.returncode}"


def main(argv):
    print_commands = "--print-commands" in argv
    binary = None
    rest = []
    words = iter(argv)
    for word in words:
        if word == "--dlcbench":
            binary = next(words, None)
        elif word != "--print-commands":
            rest.append(word)
    root = pathlib.Path(rest[0] if rest else pathlib.Path(__file__).resolve().parent.parent).resolve()
    readme = root / "README.md"
    pages = [readme] + sorted((root / "docs").glob("*.md"))
    parsed = {page: split_fences(page.read_text()) for page in pages}
    problems = []
    vectors = []

    for page, rows in parsed.items():
        name = page.relative_to(root).as_posix()
        for number, line in commands(rows):
            try:
                vector = argument_vector(line)
            except ValueError as error:
                problems.append(f"{name}:{number}: the command does not split into words ({error}): {line.strip()}")
                continue
            if vector and vector not in vectors:
                vectors.append(vector)

    if print_commands:
        for problem in problems:
            print(problem, file=sys.stderr)
        print("[" + ",\n ".join(json.dumps(v) for v in vectors) + "]")
        return 1 if problems else 0

    readme_text = readme.read_text()
    line_count = len(readme_text.splitlines())
    if line_count > MAX_README_LINES:
        problems.append(f"README.md has {line_count} lines, more than {MAX_README_LINES}: move the detail to a docs/ page")

    linked_from_readme = set()
    readme_anchors_linked = set()
    link_count = 0
    for page, rows in parsed.items():
        name = page.relative_to(root).as_posix()
        for number, target in links(rows):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or not target:
                continue  # http(s), mailto and the like
            link_count += 1
            path, _, fragment = target.partition("#")
            if not path:
                if page == readme:
                    readme_anchors_linked.add(fragment)
                if fragment not in anchors(rows):
                    problems.append(f"{name}:{number}: link to #{fragment}, which no heading of {name} gives")
                continue
            resolved = (page.parent / path).resolve()
            if not resolved.exists():
                problems.append(f"{name}:{number}: link to {target}, and {path} does not exist")
                continue
            if page == readme:
                linked_from_readme.add(resolved)
            if fragment and resolved.suffix == ".md":
                target_rows = parsed.get(resolved) or split_fences(resolved.read_text())
                if fragment not in anchors(target_rows):
                    problems.append(f"{name}:{number}: link to {target}, and no heading of {path} gives #{fragment}")

    for page in pages[1:]:
        if page.resolve() not in linked_from_readme:
            problems.append(f"{page.relative_to(root).as_posix()} is not linked from README.md: "
                            f"add it under 'Read more'")

    sections = [line for _, line, fenced in parsed[readme] if not fenced and line.startswith("## ")]
    for section in sections:
        if slug(section[3:]) not in readme_anchors_linked and slug(section[3:]) not in ("contents", "table-of-contents"):
            problems.append(f"README.md: the section '{section}' is not in the contents list")

    begins = [n for n, line, _ in parsed[readme] if line.strip() == EXAMPLE_BEGIN]
    ends = [n for n, line, _ in parsed[readme] if line.strip() == EXAMPLE_END]
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        problems.append(f"README.md: want one '{EXAMPLE_BEGIN}' line and after it one '{EXAMPLE_END}' line")
    elif not any(FENCE.match(line) for n, line, _ in parsed[readme] if begins[0] < n < ends[0]):
        problems.append("README.md: no fenced block between the example-output markers")
    else:
        problems += example_problems([(n, line) for n, line, fenced in parsed[readme]
                                      if fenced and begins[0] < n < ends[0] and not FENCE.match(line)])

    if binary:
        for vector in vectors:
            why = parse_problem(binary, vector)
            if why:
                problems.append(f"`{shlex.join(vector)}` does not parse: {why}")

    for problem in problems:
        print(problem)
    if problems:
        return 1
    parsed_words = "parse" if binary else "split into words"
    print(f"check_docs: README.md has {line_count} lines (at most {MAX_README_LINES}) and lists its "
          f"{len(sections)} sections; the {link_count} relative links of it and the {len(pages) - 1} docs pages "
          f"resolve, each page is linked from it, and its {len(vectors)} dlcbench commands {parsed_words}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
