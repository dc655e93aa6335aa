#!/usr/bin/env python3
"""docs/architecture.md stays true to the tree.

Every folder it names (`src/...`, `tests/...`, `docs/...`) exists, and every
folder of src/ is named in it, so a part added or moved is a part described.

    tests/check_architecture_doc.py [ROOT]    exit 1 and one line per problem
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
PATH = re.compile(r"`((?:src|tests|docs)/[A-Za-z0-9_./*-]*)`")


def main():
    page = ROOT / "docs" / "architecture.md"
    text = page.read_text()
    problems = []
    named = set()
    for path in PATH.findall(text):
        named.add(path.rstrip("/"))
        if "*" in path:
            if not list(ROOT.glob(path)):
                problems.append(f"docs/architecture.md names {path}, which matches nothing")
        elif not (ROOT / path).exists():
            problems.append(f"docs/architecture.md names {path}, which does not exist: mend the page")
    for folder in sorted(p for p in (ROOT / "src").iterdir() if p.is_dir()):
        relative = folder.relative_to(ROOT).as_posix()
        if relative not in named:
            problems.append(f"{relative}/ is not named in docs/architecture.md: say what it is and where it sits")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"check_architecture_doc: the {len(named)} paths docs/architecture.md names exist, and every folder of "
          f"src/ is among them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
