"""The meeting family's fast paths against their plain twins, side by side on bench_meeting's workload.

    python benchmarks/bench_meeting_fast_paths.py [--sessions 200] [--repeats 1]

Each fast path (`lightscore.text.meeting.assignment`, `tc_bands`) runs beside its plain twin
(`lightscore.text.meeting.reference`) on the inputs it meets when bench_meeting's 200 generated
sessions are scored (cpWER and tcpWER with collar 5 on its STM corpus, ORC-WER on its ORC corpus),
and both results are checked equal. A fast path stays only where it pays at least 1.5x (issue 37);
the ones that did not are listed, with their figures, in benchmarks/results/fast_paths_meeting.md.
The plain twins are slow: one repeat takes several minutes.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_meeting import corpus
from common import Row, header, load_average, table, time_side_by_side, verdict

from lightscore.segments import read_stm
from lightscore.text.meeting import assignment, reference, tc_bands
from lightscore.text.meeting.time_constrained import pseudo_word_times, tcp_counts

COLLAR = 5.0  # bench_meeting's tcpWER collar


def tc_workload(ref: dict, hyp: dict) -> tuple[list[tuple], list[tuple]]:
    """Every session's non-empty speaker streams as tcpWER makes them: ``(refs, hyps)`` per session, and
    the pairs meeteval prunes (both streams' starts sorted from 0), which `tc_matrix` fills plainly."""
    sessions = []
    pruned = []
    for sid, ref_segments in ref.items():
        vocab: dict[str, int] = {}
        refs = [tc_bands.stream(w, vocab) for w in pseudo_word_times(ref_segments, "character_based").values()]
        hyp_words = pseudo_word_times(hyp.get(sid, []), "character_based_points", COLLAR).values()
        hyps = [tc_bands.stream(w, vocab) for w in hyp_words]
        refs = [s for s in refs if len(s.ids)]
        hyps = [s for s in hyps if len(s.ids)]
        sessions.append((refs, hyps))
        pruned += [(r, h) for r in refs for h in hyps if r.ordered and h.ordered]
    return sessions, pruned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    header(f"Meetings: fast paths vs plain twins ({args.sessions} sessions of bench_meeting)")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        corpus(d, args.sessions)
        ref = read_stm(d / "ref.stm")
        hyp = read_stm(d / "hyp.stm")
        orc_ref = read_stm(d / "orc_ref.stm")
        orc_hyp = read_stm(d / "orc_hyp.stm")
    sessions, pruned = tc_workload(ref, hyp)
    whole_pairs = sum(len(r) * len(h) for r, h in sessions) - len(pruned)
    unkept = sum(not tc_bands.keeps_rows(r, h) for r, h in sessions if r and h)
    print(f"tcpWER pairs: {len(pruned)} pruned (tc_matrix), {whole_pairs} whole (whole_matrices); ", end="")
    print(f"sessions whose whole rows are not kept: {unkept}\n")
    orc_inputs = []
    for sid, segments in orc_ref.items():
        vocab: dict[str, int] = {}
        utterances = [s.words.split() for s in sorted(segments, key=lambda s: s.start)]
        streams = assignment.speaker_streams(orc_hyp.get(sid, [])).values()
        orc_inputs.append(
            ([assignment.word_ids(u, vocab) for u in utterances], [assignment.word_ids(s, vocab) for s in streams])
        )

    def run(results: dict, key: str, fn) -> callable:
        return lambda: results.__setitem__(key, fn())

    def plain_distance(r: tc_bands.Stream, h: tc_bands.Stream) -> int:
        return reference.tc_matrix(tc_bands.timed(r), tc_bands.timed(h), prune=False)[-1][-1]

    def whole_plain() -> list:
        return [[[plain_distance(r, h) for h in hyps] for r in refs] for refs, hyps in sessions if refs and hyps]

    def whole_fast() -> list:
        return [tc_bands.whole_matrices(refs, hyps).distances.tolist() for refs, hyps in sessions if refs and hyps]

    paths = {  # name: (fast, plain, what both return)
        "cp_counts (rapidfuzz distances)": (
            lambda: [assignment.cp_counts(ref[s], hyp.get(s, [])) for s in ref],
            lambda: [reference.cp_counts(ref[s], hyp.get(s, [])) for s in ref],
        ),
        "orc_matching (numba loops)": (
            lambda: [assignment.orc_matching(u, s) for u, s in orc_inputs],
            lambda: [reference.orc_matching(u, s) for u, s in orc_inputs],
        ),
        "whole_matrices (tcpWER, unpruned pairs)": (whole_fast, whole_plain),
        "tcp_counts (all of tcpWER)": (
            lambda: [tcp_counts(ref[s], hyp.get(s, []), COLLAR) for s in ref],
            lambda: [reference.tcp_counts(ref[s], hyp.get(s, []), COLLAR) for s in ref],
        ),
    }
    first = next(iter(ref))  # imports (rapidfuzz, scipy, kaldialign) happen here, before any timing
    assignment.cp_counts(ref[first], hyp.get(first, []))
    tcp_counts(ref[first], hyp.get(first, []), COLLAR)
    lines = []
    for name, (fast, plain) in paths.items():
        results: dict = {}
        times = time_side_by_side(
            {"fast": run(results, "fast", fast), "plain": run(results, "plain", plain)},
            repeats=args.repeats,
            warmup=False,
        )
        same = "same results" if results["fast"] == results["plain"] else "RESULTS DIFFER"
        print(f"### {name}\n")
        print(table([Row(m, args.sessions, times[m], unit="sessions") for m in ("fast", "plain")], baseline="fast"))
        gain = min(times["plain"]) / min(times["fast"])
        lines.append(verdict(f"{name}: gain over the plain twin", gain, 1.5, higher_is_better=True) + f"; {same}")
        print()
    print("\n".join(lines))
    print(f"\nload average at end: {load_average()}")


if __name__ == "__main__":
    main()
