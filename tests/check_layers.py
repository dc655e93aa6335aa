#!/usr/bin/env python3
"""The includes between the folders of src/ follow the layering.

Each folder of src/ is a part; a file may include another part's header only
along an allowed arrow below, and never along a forbidden one. An arrow with
a label is allowed only from files whose name holds the label (the `doctor`
command may look at runtimes, the `worker` command at back ends). `src` is a
public include folder, so CMake cannot check this; this script does, with
the unit tests.

KNOWN lists the includes that break the layering today, each to be removed
as the code is mended (issue 36); one that is gone must leave the list too,
so it only shrinks.

    tests/check_layers.py [ROOT]    exit 1 and one line per include that breaks it
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)

PARTS = {  # folder (or file) under src/ -> part
    "cli": "Cli", "main.cpp": "Cli", "cluster": "Cluster", "mpi": "Cluster", "orchestrator": "Orchestrator",
    "report": "Report", "runtimes": "Runtimes", "analysis": "Analysis", "workloads": "Workloads",
    "backends": "Backends", "gpu": "Gpu", "data": "Data", "probe": "Probe", "noop": "Probe", "core": "Core",
    "model": "Model", "store": "Store",
}

ALLOWED = {  # (from, to): label ("" = from any file of the part)
    ("Cli", "Orchestrator"): "", ("Cli", "Cluster"): "", ("Cli", "Report"): "", ("Cli", "Analysis"): "",
    ("Cli", "Workloads"): "", ("Cli", "Model"): "", ("Cli", "Core"): "", ("Cli", "Data"): "", ("Cli", "Gpu"): "",
    ("Cli", "Runtimes"): "doctor", ("Cli", "Backends"): "worker", ("Cli", "Store"): "",
    ("Store", "Analysis"): "", ("Store", "Model"): "", ("Store", "Core"): "",
    ("Cluster", "Orchestrator"): "", ("Cluster", "Runtimes"): "", ("Cluster", "Model"): "", ("Cluster", "Core"): "",
    ("Cluster", "Analysis"): "", ("Cluster", "Report"): "",
    ("Orchestrator", "Runtimes"): "", ("Orchestrator", "Analysis"): "", ("Orchestrator", "Model"): "",
    ("Orchestrator", "Core"): "", ("Orchestrator", "Workloads"): "",
    ("Report", "Analysis"): "", ("Report", "Model"): "", ("Report", "Core"): "", ("Report", "Workloads"): "",
    ("Analysis", "Model"): "", ("Analysis", "Core"): "", ("Analysis", "Workloads"): "",
    ("Runtimes", "Model"): "", ("Runtimes", "Core"): "",
    ("Model", "Core"): "",
    ("Backends", "Workloads"): "", ("Backends", "Data"): "", ("Backends", "Core"): "",
    ("Gpu", "Backends"): "", ("Gpu", "Core"): "", ("Gpu", "Workloads"): "",
    ("Workloads", "Core"): "", ("Workloads", "Gpu"): "",
    ("Data", "Core"): "",
    ("Probe", "Core"): "", ("Probe", "Workloads"): "",
}

# Arrows the picture lacks, proposed for it with their reason (the closing
# note of issue 36 names them); allowed here until the picture says.
PROPOSED = {
    ("Orchestrator", "Data"): "the planning checks the data sets before anything is launched, and a resumed "
                              "session checks them again",
    ("Orchestrator", "Gpu"): "the session puts the CUDA plugin's files into the images of a run with GPU cases",
}

NEVER = {  # (from, to): why
    ("Core", "Cli"): "the core knows no command line",
    ("Core", "Runtimes"): "the core knows no container",
    ("Core", "Backends"): "the core knows no framework",
    ("Analysis", "Orchestrator"): "statistics read records, not the scheduler",
    ("Analysis", "Runtimes"): "statistics know no container",
    ("Analysis", "Cluster"): "statistics know no cluster",
    ("Report", "Runtimes"): "reports are computed from files alone",
    ("Report", "Orchestrator"): "reports are computed from files alone",
    ("Backends", "Runtimes"): "a back end never knows where it runs",
    ("Runtimes", "Backends"): "the orchestrator never links a framework",
    ("Orchestrator", "Cli"): "the session takes a typed request, not argv",
    ("Backends", "Gpu"): "the plugin loader is above the back ends",
    ("Data", "Backends"): "loaders hand plain tensors up",
    ("Workloads", "Runtimes"): "a workload never knows where it runs",
    ("Gpu", "Runtimes"): "the loader knows no image",
}

# (file, included header): the layering broken on 2026-12-06, to be mended.
KNOWN = set()
# Pairs of parts that include each other today (a loop), to be broken.
KNOWN_LOOPS = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def part_of(relative):
    """The part of a path under src/ ("cli/run_command.cpp" -> Cli), or None."""
    first = relative.split("/", 1)[0]
    return PARTS.get(first)


def main():
    src = ROOT / "src"
    problems, seen_known, edges = [], set(), {}
    for path in sorted(src.rglob("*")):
        if path.suffix not in {".h", ".cpp", ".cu", ".cuh"} or not path.is_file():
            continue
        relative = path.relative_to(src).as_posix()
        source = part_of(relative)
        if source is None:
            problems.append(f"src/{relative}: in no part: name its folder in tests/check_layers.py's PARTS")
            continue
        for header in INCLUDE.findall(path.read_text(errors="replace")):
            if not (src / header).is_file():
                continue  # relative to the file itself, or generated: within the part
            target = part_of(header)
            if target is None or target == source:
                continue
            edges.setdefault((source, target), []).append(f"src/{relative}")
            key = (f"src/{relative}", header)
            label = ALLOWED.get((source, target), "" if (source, target) in PROPOSED else None)
            if (source, target) not in NEVER and label is not None and label in path.name:
                continue
            if key in KNOWN:
                seen_known.add(key)
                continue
            why = NEVER.get((source, target))
            if why:
                problems.append(f"src/{relative} includes {header}: {source} must never depend on {target} ({why})")
            elif label:
                problems.append(f"src/{relative} includes {header}: {source} -> {target} only from the {label} "
                                f"command's files")
            else:
                problems.append(f"src/{relative} includes {header}: {source} -> {target} is no allowed arrow; "
                                f"move the code to a part both may use, or say why the arrow belongs in the table")
    for file, header in sorted(KNOWN - seen_known):
        problems.append(f"{file} no longer includes {header} against the layering: remove it from KNOWN")
    # Loops between parts, arrows both ways (a loop of known debts included).
    loops = {(a, b) for (a, b) in edges if a < b and (b, a) in edges}
    for a, b in sorted(loops - KNOWN_LOOPS):
        problems.append(f"a loop between {a} and {b}: {edges[(a, b)][0]} and {edges[(b, a)][0]}")
    for a, b in sorted(KNOWN_LOOPS - loops):
        problems.append(f"{a} and {b} no longer include each other: remove them from KNOWN_LOOPS")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} includes break the layering", file=sys.stderr)
        return 1
    print(f"check_layers: every include between the parts of src/ follows an allowed arrow "
          f"({len(KNOWN)} known exceptions and {len(KNOWN_LOOPS)} loops left to mend)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
