"""What the ``lightscore`` command prints: result tables, aligned rows, progress bars, the comparison.

Standard library only at import (`lightscore.analysis.verdict` is; tqdm is imported when a bar is drawn), so
``lightscore --help`` stays fast.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import IO, Any

from lightscore.analysis.verdict import p_text

__all__ = ["ProgressBar", "format_comparison", "format_rows", "format_table"]


def format_table(results: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """One table per result key: a row per test set, a column per output.

    >>> print(format_table({"WER": {"dev": {"WER": 12.5, "WER_sub": 3}, "test": {"WER": 8.0, "WER_sub": 2}}}))
    WER
      test set  WER    WER_sub
      dev       12.50  3
      test      8.00   2
    >>> print(format_table({"WER": {"dev": {"WER": 12.5}, "pooled": {"failed": ["test"]}}}))
    WER
      test set  WER
      dev       12.50
      pooled    not computed: test failed
    """
    from lightscore.report.scoreboard import FAILED, failed_note

    blocks = []
    for key, tests in results.items():
        outputs = list(dict.fromkeys(name for result in tests.values() for name in result if name != FAILED))
        rows: list[list[Any]] = [["test set", *outputs]]
        for test, result in tests.items():
            if FAILED in result:  # a pooled or macro row not computed: one note instead of the numbers
                rows.append([test, failed_note(result[FAILED])])
            else:
                rows.append([test, *(_cell(result.get(name)) for name in outputs)])
        blocks.append("\n".join([key, format_rows(rows)]))
    return "\n\n".join(blocks)


def format_rows(rows: Sequence[Sequence[Any]], indent: str = "  ") -> str:
    """Rows of cells as aligned columns, two spaces apart; floats with two decimals.

    >>> print(format_rows([["speaker", "rate"], ["spk1", 12.5], ["spk10", 3]]))
      speaker  rate
      spk1     12.50
      spk10    3
    """
    cells = [[_cell(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells if i < len(row)) for i in range(max(map(len, cells)))]
    return "\n".join(indent + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


class ProgressBar:
    """A tqdm bar per (metric, test set) on a stream, with rows done, rate and time left.

    On a terminal the bar is redrawn in place; on anything else (a log file, a
    pipe) each bar is written once, as one line, when its pair is done, so logs
    hold no carriage returns. Called as ``progress(key, test_name, rows_done, rows_total)``.
    Without tqdm (it comes with Lightning) it shows nothing.

    >>> out = io.StringIO()
    >>> bar = ProgressBar(out)
    >>> bar("WER", "dev", 0, 4); bar("WER", "dev", 2, 4); bar("WER", "dev", 4, 4); bar.close()
    >>> out.getvalue().startswith("dev  WER: 100%|") and " 4/4 [" in out.getvalue()
    True
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.current: tuple[str, str] | None = None
        self.bar: Any = None

    def __call__(self, key: str, test_name: str, done: int, total: int) -> None:
        if (key, test_name) != self.current:
            self.close()
            self.current = (key, test_name)
            self.bar = _tqdm(total, "  ".join(part for part in (test_name, key) if part), self.stream, self.live)
        if self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self, show: bool = True) -> None:
        """End the current bar (its one line, off a terminal, unless ``show`` is False)."""
        if self.bar is not None:
            if not self.live and show:
                self.stream.write(str(self.bar) + "\n")
                self.stream.flush()
            self.bar.close()
        self.bar, self.current = None, None


def _tqdm(total: int, desc: str, stream: IO[str], live: bool) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    # Off a terminal the bar draws into a sink; close() writes its final state once.
    return tqdm(total=total, desc=desc, unit="rows", file=stream if live else io.StringIO(), leave=live)


def format_comparison(summary: Mapping[str, Any]) -> str:
    """The text ``lightscore compare`` prints for a `lightscore.offline.compare.compare` result.

    Args:
        summary: What `lightscore.offline.compare.compare` returned (with its ``files``).

    Returns:
        The settings, each system's rate and interval, the difference, a table of the five
        tests and the verdict, one per line.

    >>> import tempfile, pathlib
    >>> from lightscore.offline.compare import compare
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.scp").write_text("s1-u1 a b c\\ns2-u2 d e f\\n")
    >>> _ = (d / "a.scp").write_text("s1-u1 a x c\\ns2-u2 d e f\\n")
    >>> text = format_comparison(compare(d / "ref.scp", d / "a.scp", d / "ref.scp", bootstrap=100))
    >>> text.splitlines()[-1]
    'verdict: no significant difference (paired bootstrap p = 0.673 >= 0.05; no other test differs)'
    """
    name, ci = summary["metric"], summary["ci"]
    lines = [f"settings: {summary['settings']}"]
    for key in ("a", "b"):
        result = summary[key]
        interval = f"  {ci:.0%} interval [{result[f'{name}_ci_low']:.2f}, {result[f'{name}_ci_high']:.2f}]"
        lines.append(f"{key.upper()} {summary['files'][key]}: {name} {result[name]:.2f}{interval}")
    boot = summary["bootstrap"]
    low, high = boot["ci"]
    block = ", by speaker" if boot["block_bootstrap"] else ""
    lines.append(
        f"difference B - A: {boot['difference']:+.2f} points, {ci:.0%} interval [{low:+.2f}, {high:+.2f}], "
        f"P(B better) = {boot['p_b_better']:.3f} ({boot['replicates']} replicates{block})"
    )
    rows = [("test", "statistic", "p", "verdict")]
    rows.append(("paired bootstrap", f"difference {boot['difference']:+.2f}", _p(boot["p"]), boot["verdict"]))
    mp = summary["mapsswe"]
    rows.append(("MAPSSWE", f"z = {_z(mp['z'])} ({mp['segments']} segments)", _p(mp["p"]), mp["verdict"]))
    mn = summary["mcnemar"]
    rows.append(("McNemar", f"A only {mn['a_only']}, B only {mn['b_only']}", _p(mn["p"]), mn["verdict"]))
    si = summary["sign"]
    signs = f"N+ {si['n_plus']}, N- {si['n_minus']}, N0 {si['n_zero']} ({si['difference']})"
    rows.append(("sign", signs, _p(si["p"]), si["verdict"]))
    wi = summary["wilcoxon"]
    rows.append(("Wilcoxon", f"W = {wi['w']:g}, z = {_z(wi['z'])}", _p(wi["p"]), wi["verdict"]))
    lines.append(f"{summary['utterances']} utterances, {len(summary['speakers'])} speakers\n" + format_rows(rows))
    lines.append(f"verdict: {summary['verdict']}")
    return "\n".join(lines)


def _p(p: float) -> str:
    return p_text(p, digits=4)


def _z(z: float | None) -> str:
    return "undefined" if z is None else f"{z:.3f}"
