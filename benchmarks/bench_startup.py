"""Target 5: start-up of ``import lightscore`` and ``lightscore score --help``, as a ratio to ``python -c pass``.

    python benchmarks/bench_startup.py [--repeats 20]

Each command runs as a fresh process, interleaved with the others, so the
ratios share the machine's state. ``python -X importtime`` then lists every
module each command loads, which proves that torch, lightning, sentencepiece,
hydra and omegaconf stay out; one of them loaded exits with status 1.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from common import Row, header, python, table, time_side_by_side

HEAVY = ("torch", "lightning", "pytorch_lightning", "sentencepiece", "hydra", "omegaconf", "torchaudio", "numpy")


def lightscore_command() -> list[str]:
    """The installed ``lightscore`` console script, as a user runs it."""
    script = Path(python()).with_name("lightscore")
    if script.is_file():
        return [python(), str(script)]  # through the same interpreter, without relying on the shebang
    found = shutil.which("lightscore")
    if found is None:
        raise SystemExit("the lightscore command is not installed: pip install -e .")
    return [found]


def commands() -> dict[str, list[str]]:
    return {
        "python -c pass": [python(), "-c", "pass"],
        "python -c 'import lightscore'": [python(), "-c", "import lightscore"],
        "lightscore score --help": [*lightscore_command(), "score", "--help"],
        "lightscore measure --help": [*lightscore_command(), "measure", "--help"],
        "(reference) python -c 'import torch'": [python(), "-c", "import torch"],
    }


def run(command: list[str]) -> None:
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def loaded_modules(command: list[str]) -> set[str]:
    """Top-level names of every module ``command`` imports, read from ``python -X importtime``."""
    result = subprocess.run([command[0], "-X", "importtime", *command[1:]], capture_output=True, text=True, check=True)
    names = set()
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":  # the header line
                names.add(name.split(".")[0])
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20, help="runs per command (default: %(default)s)")
    args = parser.parse_args(argv)
    header("Start-up (target 5)")
    cmds = commands()
    times = time_side_by_side({name: (lambda c=c: run(c)) for name, c in cmds.items()}, args.repeats)
    rows = [Row(name, 1, seconds, unit="runs") for name, seconds in times.items()]
    print(table(rows, baseline="python -c pass", ratio_label="time / python -c pass"))
    print()
    clean = True
    for name in ("python -c 'import lightscore'", "lightscore score --help", "lightscore measure --help"):
        modules = loaded_modules(cmds[name])
        heavy = sorted(m for m in modules if m in HEAVY)
        clean &= not heavy
        print(f"- {name}: {len(modules)} top-level modules loaded; of {', '.join(HEAVY)}: {', '.join(heavy) or 'none'}")
    base = Row("", 1, times["python -c pass"]).median
    print("\n### Targets\n")
    for name in ("python -c 'import lightscore'", "lightscore score --help"):
        ratio = Row(name, 1, times[name]).median / base
        print(f"- {name}: {ratio:.2f}x python -c pass (given as a ratio, no fixed target)")
    verdict = "MET" if clean else "NOT MET"
    print(f"- no torch or lightning loaded by import lightscore / lightscore score --help: {verdict}")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
