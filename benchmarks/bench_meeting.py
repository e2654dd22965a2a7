"""Meetings: lightscore's cpWER, ORC-WER, tcpWER against meeteval, its DER against md-eval and pyannote.metrics.

    python benchmarks/bench_meeting.py [--sessions 200] [--repeats 3]

One generated corpus (STM for cpWER, RTTM for DER), scored by every tool on the same files in
one run; the numbers each reports are printed beside the times, and must agree. The ORC family
(issue 39: ORC-WER, greedy ORC-WER, tcORC-WER, greedy tcORC-WER, DI-cpWER, tcpWER) is scored on
sessions of 1-14 segments, 1-4 speakers and 1-4 streams (`orc_family_corpus`); the numba searches
are warmed (compiled, or loaded from their cache) by one untimed run of each method before timing.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

from common import Row, header, load_average, table, time_side_by_side, verdict

from lightscore.metrics.meeting import CPWER, DER, ORCWER, TCPWER
from lightscore.metrics.meeting_orc import TCORCWER, GreedyORCWER, GreedyTCORCWER
from lightscore.segments import read_rttm, read_stm, write_session_scps

WORDS = "the a of to and in is that it was for on are as with his they at be this".split()


def corpus(d: Path, sessions: int, seed: int = 0) -> None:
    """Write ref/hyp STM and RTTM files: 2-6 speakers, ~40 turns each, ~10% word errors, turns jittered."""
    rng = random.Random(seed)
    stm = {"ref": [], "hyp": []}
    rttm = {"ref": [], "hyp": []}
    for i in range(sessions):
        sid = f"sess{i:04d}"
        speakers = rng.randint(2, 6)
        for k in range(speakers):
            t = rng.uniform(0, 5)
            hyp_speaker = (k + 1) % speakers if rng.random() < 0.3 else k
            for _ in range(40 // speakers * 2):
                length = rng.uniform(0.5, 8)
                words = [rng.choice(WORDS) for _ in range(max(1, int(length * 2.5)))]
                guess = [w if rng.random() > 0.1 else rng.choice(WORDS) for w in words]
                start = t
                end = t + length
                stm["ref"].append(f"{sid} 1 spk{k} {start:.3f} {end:.3f} {' '.join(words)}")
                stm["hyp"].append(f"{sid} 1 sys{hyp_speaker} {start:.3f} {end:.3f} {' '.join(guess)}")
                rttm["ref"].append(f"SPEAKER {sid} 1 {start:.3f} {length:.3f} <NA> <NA> spk{k} <NA> <NA>")
                h0 = start + rng.uniform(-0.3, 0.3)
                h1 = end + rng.uniform(-0.3, 0.3)
                rttm["hyp"].append(f"SPEAKER {sid} 1 {max(0, h0):.3f} {h1 - max(0, h0):.3f} <NA> <NA> c{k} <NA> <NA>")
                t = end + rng.uniform(0.7, 10)  # > twice the jitter: no speaker overlaps itself
    for side in ("ref", "hyp"):
        (d / f"{side}.stm").write_text("\n".join(stm[side]) + "\n")
        (d / f"{side}.rttm").write_text("\n".join(rttm[side]) + "\n")
    orc_corpus(d, sessions, rng)


def orc_corpus(d: Path, sessions: int, rng: random.Random) -> None:
    """ORC-WER's case: 4 reference speakers, a 2-channel separated hypothesis; 16 turns of ~6 words each."""
    lines = {"ref": [], "hyp": []}
    for i in range(sessions):
        sid = f"sess{i:04d}"
        t = 0.0
        for _ in range(16):
            words = [rng.choice(WORDS) for _ in range(rng.randint(3, 9))]
            guess = [w if rng.random() > 0.1 else rng.choice(WORDS) for w in words]
            lines["ref"].append(f"{sid} 1 spk{rng.randint(0, 3)} {t:.3f} {t + 3:.3f} {' '.join(words)}")
            lines["hyp"].append(f"{sid} 1 ch{rng.randint(0, 1)} {t:.3f} {t + 3:.3f} {' '.join(guess)}")
            t += rng.uniform(1, 4)
    (d / "orc").mkdir()
    for side in ("ref", "hyp"):
        text = "\n".join(lines[side]) + "\n"
        (d / f"orc_{side}.stm").write_text(text)
        (d / "orc" / f"{side}.stm").write_text(text)


def orc_family_corpus(d: Path, sessions: int, seed: int = 1) -> None:
    """The ORC family's sessions (issue 39): 1-14 reference segments of 1-4 speakers, 1-4 hypothesis streams.

    Turns overlap (a new one starts 0-3 s after the last), ~10% of words changed, ~15% of turns split
    or sent to another stream, so that every search has work and ties to break.
    """
    rng = random.Random(seed)
    lines = {"ref": [], "hyp": []}
    for i in range(sessions):
        sid = f"sess{i:04d}"
        speakers = rng.randint(1, 4)
        streams = rng.randint(1, 4)
        t = 0.0
        for _ in range(rng.randint(1, 14)):
            k = rng.randrange(speakers)
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 10))]
            length = 0.4 * len(words)
            lines["ref"].append(f"{sid} 1 spk{k} {t:.3f} {t + length:.3f} {' '.join(words)}")
            guess = [w if rng.random() > 0.1 else rng.choice(WORDS) for w in words]
            stream = k % streams if rng.random() > 0.15 else rng.randrange(streams)
            cut = len(guess) // 2 if rng.random() < 0.15 else len(guess)
            shift = rng.uniform(-0.5, 0.5)
            for part, channel in ((guess[:cut], stream), (guess[cut:], rng.randrange(streams))):
                if part:
                    start = max(0.0, t + shift)
                    lines["hyp"].append(f"{sid} 1 ch{channel} {start:.3f} {start + length:.3f} {' '.join(part)}")
            t += rng.uniform(0, 3)
    (d / "family").mkdir()
    for side in ("ref", "hyp"):
        (d / "family" / f"{side}.stm").write_text("\n".join(lines[side]) + "\n")


def meeteval_rate(d: Path, tool: str, **options) -> float:
    """``meeteval.wer.api.<tool>`` on the STM files: the corpus error rate in percent."""
    import logging

    from meeteval.wer import api

    logging.disable(logging.WARNING)  # tcpwer warns about the collar and word order on every session
    results = getattr(api, tool)(str(d / "ref.stm"), str(d / "hyp.stm"), **options)
    return sum(results.values()).error_rate * 100


def md_eval_der(d: Path, collar: float) -> float:
    out = subprocess.run(
        ["sctk", "md-eval", "-r", d / "ref.rttm", "-s", d / "hyp.rttm", "-c", str(collar)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # Its printed DER has 2 decimals; the times (2 decimals of a second) give the rate to more digits.
    times = [
        float(re.search(rf"{name} =\s*([\d.]+)", out).group(1))
        for name in ("SCORED SPEAKER TIME", "MISSED SPEAKER TIME", "FALARM SPEAKER TIME")
    ]
    error = float(re.search(r"SPEAKER ERROR TIME =\s*([\d.]+)", out).group(1))
    return (times[1] + times[2] + error) / times[0] * 100


def pyannote_der(d: Path, collar: float) -> float:
    from pyannote.core import Annotation
    from pyannote.core import Segment as Span
    from pyannote.metrics.diarization import DiarizationErrorRate

    refs = read_rttm(d / "ref.rttm")
    hyps = read_rttm(d / "hyp.rttm")
    metric = DiarizationErrorRate(collar=2 * collar)  # pyannote's collar is the total width
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sid, segments in refs.items():
            r = Annotation(uri=sid)
            h = Annotation(uri=sid)
            for i, s in enumerate(segments):
                r[Span(s.start, s.end), i] = s.speaker
            for i, s in enumerate(hyps.get(sid, [])):
                h[Span(s.start, s.end), i] = s.speaker
            metric(r, h)
    return abs(metric) * 100


def family_methods(d: Path, scp: dict, values: dict) -> tuple[dict, list[tuple[str, str]], str | None]:
    """The ORC family's methods, lightscore's beside meeteval's: ``({name: run}, [(ours, theirs)], missing)``."""
    pairs = [
        ("ORCWER", lambda: ORCWER(), "orcWER", "orcwer", {}),
        ("GreedyORCWER", lambda: GreedyORCWER(), "greedy_orcWER", "greedy_orcwer", {}),
        ("TCORCWER", lambda: TCORCWER(collar=5), "tcorcWER", "tcorcwer", {"collar": 5}),
        ("GreedyTCORCWER", lambda: GreedyTCORCWER(collar=5), "greedy_tcorcWER", "greedy_tcorcwer", {"collar": 5}),
    ]
    missing = None
    try:  # DI-cpWER is written beside the ORC family (issue 39); the benchmark runs without it
        from lightscore.metrics.meeting_di import DICPWER

        DICPWER()
        pairs.append(("DICPWER", lambda: DICPWER(), "dicpWER", "greedy_dicpwer", {}))
    except Exception as e:  # noqa: BLE001 - any failure to build it means it is not there to time
        missing = f"lightscore.metrics.meeting_di.DICPWER is missing ({type(e).__name__}: {e}): DI-cpWER not timed"
    pairs.append(("TCPWER", lambda: TCPWER(collar=5), "tcpWER", "tcpwer", {"collar": 5}))
    methods = {}
    names = []
    for ours, build, key, tool, options in pairs:
        mine = f"lightscore {ours}"
        theirs = f"meeteval {tool}"
        methods[mine] = lambda build=build, key=key, mine=mine: values.__setitem__(mine, build()(scp, "dev")[key])
        methods[theirs] = lambda tool=tool, options=options, theirs=theirs: values.__setitem__(
            theirs, meeteval_rate(d / "family", tool, **options)
        )
        names.append((mine, theirs))
    return methods, names, missing


def twin_gains(d: Path, max_cells: int, repeats: int) -> str:
    """Each compiled ORC-family search against its plain twin (the same loops run by Python: ``compiled=False``),
    on the family corpus' sessions whose ORC grid has at most ``max_cells`` cells (the plain twins are slow)."""
    import math

    from lightscore.text.meeting.assignment import speaker_streams, word_ids
    from lightscore.text.meeting.greedy_orc import greedy_orc_counts
    from lightscore.text.meeting.orc_search import orc_matching
    from lightscore.text.meeting.tc_orc import greedy_tc_orc_counts, tc_orc_counts

    refs = read_stm(d / "family" / "ref.stm")
    hyps = read_stm(d / "family" / "hyp.stm")
    small = {}
    for sid, ref in refs.items():
        streams = speaker_streams(hyps.get(sid, []))
        if streams and math.prod(len(words) + 1 for words in streams.values()) <= max_cells:
            vocab: dict[str, int] = {}
            ordered = sorted(ref, key=lambda seg: seg.start)
            small[sid] = (
                [word_ids(seg.words.split(), vocab) for seg in ordered],
                [word_ids(words, vocab) for words in streams.values()],
            )
    paths = {
        "orc_search.search (ORC-WER)": lambda c: [orc_matching(u, h, compiled=c) for u, h in small.values()],
        "greedy_orc.sweeps (greedy ORC-WER)": lambda c: [
            greedy_orc_counts(refs[s], hyps[s], compiled=c) for s in small
        ],
        "tc_orc.search + tc_pair.breakdown (tcORC-WER)": lambda c: [
            tc_orc_counts(refs[s], hyps[s], 5.0, compiled=c) for s in small
        ],
        "greedy sweeps + tc_pair.breakdown (greedy tcORC-WER)": lambda c: [
            greedy_tc_orc_counts(refs[s], hyps[s], 5.0, compiled=c) for s in small
        ],
    }
    lines = [
        f"\n#### The compiled searches against their plain twins ({len(small)} sessions whose ORC grid has at most "
        f"{max_cells:,} cells; the twin is the same code run by Python)\n"
    ]
    for name, run in paths.items():
        results = {}
        times = time_side_by_side(
            {
                "numba": lambda run=run, results=results: results.__setitem__("numba", run(True)),
                "plain": lambda run=run, results=results: results.__setitem__("plain", run(False)),
            },
            repeats=repeats,
        )
        same = "same results" if results["numba"] == results["plain"] else "RESULTS DIFFER"
        gain = min(times["plain"]) / min(times["numba"])
        lines.append(verdict(f"{name}: gain over the plain twin", gain, 1.5, higher_is_better=True) + f"; {same}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--collar", type=float, default=0.25)
    parser.add_argument("--twin-cells", type=int, default=3000, help="the plain twins' sessions: largest ORC grid")
    args = parser.parse_args()
    header(f"Meetings: cpWER, tcpWER, ORC-WER vs meeteval, DER vs md-eval and pyannote ({args.sessions} sessions)")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        corpus(d, args.sessions)
        stm = write_session_scps(d / "ref.stm", d / "hyp.stm", d / "stm_scp")
        rttm = write_session_scps(d / "ref.rttm", d / "hyp.rttm", d / "rttm_scp")
        values = {}

        def keep(name, fn):
            return lambda: values.__setitem__(name, fn())

        cp = {
            "lightscore CPWER": keep("lightscore CPWER", lambda: CPWER()(stm, "dev")["cpWER"]),
            "meeteval cpwer": keep("meeteval cpwer", lambda: meeteval_rate(d, "cpwer")),
            "lightscore TCPWER": keep("lightscore TCPWER", lambda: TCPWER(collar=5)(stm, "dev")["tcpWER"]),
            "meeteval tcpwer": keep("meeteval tcpwer", lambda: meeteval_rate(d, "tcpwer", collar=5)),
        }
        orc_stm = write_session_scps(d / "orc_ref.stm", d / "orc_hyp.stm", d / "orc_scp")
        orc = {
            "lightscore ORCWER": keep("lightscore ORCWER", lambda: ORCWER()(orc_stm, "dev")["orcWER"]),
            "meeteval orcwer": keep("meeteval orcwer", lambda: meeteval_rate(d / "orc", "orcwer")),
        }
        collar = args.collar
        der = {
            "lightscore DER (md-eval)": lambda: values.__setitem__(
                "lightscore DER (md-eval)", DER(collar=collar)(rttm, "dev")["DER"]
            ),
            "lightscore DER (pyannote)": lambda: values.__setitem__(
                "lightscore DER (pyannote)", DER(collar=2 * collar, convention="pyannote")(rttm, "dev")["DER"]
            ),
        }
        if shutil.which("sctk"):
            der["sctk md-eval"] = lambda: values.__setitem__("sctk md-eval", md_eval_der(d, collar))
        der["pyannote.metrics"] = lambda: values.__setitem__("pyannote.metrics", pyannote_der(d, collar))
        orc_family_corpus(d, args.sessions)
        family_scp = write_session_scps(d / "family" / "ref.stm", d / "family" / "hyp.stm", d / "family_scp")
        family, family_pairs, missing = family_methods(d, family_scp, values)
        cp_times = time_side_by_side(cp, repeats=args.repeats)
        orc_times = time_side_by_side(orc, repeats=args.repeats)
        der_times = time_side_by_side(der, repeats=args.repeats)
        family_times = time_side_by_side(family, repeats=args.repeats)  # its warm-up run compiles the numba code
        twins = twin_gains(d, args.twin_cells, repeats=1)
    for names, times, base in ((cp, cp_times, "lightscore CPWER"), (orc, orc_times, "lightscore ORCWER")):
        rows = [Row(name, args.sessions, times[name], unit="sessions") for name in names]
        print(table(rows, baseline=base))
        print("\n" + "\n".join(f"- {name}: {values[name]:.4f}%" for name in names) + "\n")
    rows = [Row(name, args.sessions, der_times[name], unit="sessions") for name in der]
    print(table(rows, baseline="lightscore DER (md-eval)"))
    print("\n" + "\n".join(f"- {name}: DER {values[name]:.4f}%" for name in der) + "\n")
    for tool, times in (("cpwer", cp_times), ("tcpwer", cp_times), ("orcwer", orc_times)):
        ours = values[f"lightscore {tool.upper()}"]
        theirs = values[f"meeteval {tool}"]
        # Both are errors / words * 100 in floats; a difference would be a count, far above 1e-9.
        same = "same number" if abs(ours - theirs) < 1e-9 else f"NUMBERS DIFFER ({ours!r} vs {theirs!r})"
        ratio = min(times[f"meeteval {tool}"]) / min(times[f"lightscore {tool.upper()}"])
        print(verdict(f"speed-up over meeteval {tool}", ratio, 1, higher_is_better=True) + f"; {same}")
    ratio = min(der_times["pyannote.metrics"]) / min(der_times["lightscore DER (pyannote)"])
    print(verdict("speed-up over pyannote.metrics DER", ratio, 10, higher_is_better=True))
    print(
        f"\n#### The ORC family and DI-cpWER against meeteval ({args.sessions} sessions of 1-14 segments, "
        "1-4 speakers, 1-4 streams; collar 5 where timed)\n\n"
        "numba cache warmed: every method ran once, untimed, before the timed runs (the searches compiled "
        "or loaded from their cache); the times are the best of the interleaved repeats.\n"
    )
    if missing:
        print(missing + "\n")
    rows = [Row(name, args.sessions, family_times[name], unit="sessions") for pair in family_pairs for name in pair]
    print(table(rows, baseline="lightscore ORCWER"))
    print("\n" + "\n".join(f"- {name}: {values[name]:.4f}%" for pair in family_pairs for name in pair) + "\n")
    for ours, theirs in family_pairs:
        same = "same number" if abs(values[ours] - values[theirs]) < 1e-9 else "NUMBERS DIFFER"
        ratio = min(family_times[theirs]) / min(family_times[ours])
        print(verdict(f"speed-up of {ours} over {theirs}", ratio, 1, higher_is_better=True) + f"; {same}")
    print(twins)
    print(f"\nload average at end: {load_average()}")


if __name__ == "__main__":
    main()
