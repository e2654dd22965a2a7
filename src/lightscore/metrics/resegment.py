"""`Resegmented`: a text metric scored on talk-level output re-segmented to the reference segments, as IWSLT does.

A long-form speech translation (or recognition) system writes a whole talk at once. IWSLT's offline
track cuts each talk's output into the reference's segments with mwerSegmenter (minimum word error:
`lightscore.text.mt.resegment`, equal to mweralign) and then scores BLEU, chrF and TER on the segments.
`Resegmented` does both: each row is a talk, re-segmented in ``update``, and the wrapped metric's
state (its per-segment statistics, summed or kept) is this metric's state, so N ranks give one's number.

Inputs, one row per talk (the row's id is the talk id):

- ``hyp``: the talk's whole hypothesis;
- ``ref``: its reference segments, a JSON array of strings or one segment per line;
- ``ref_ids`` (optional): the segments' ids in the same form; default ``<talk>_0001``, ``<talk>_0002``...;
- ``talk`` (optional, files only): an SCP file mapping each reference segment to its talk, for a
  ``ref`` file keyed by segment (`lightscore.metrics.resegment_talks.talk_batches`).

>>> m = Resegmented("wer")
>>> m.update(hyp=["the cat sat on the mat"], ref=["the cat sat\\non a mat"])
>>> m.compute()["WER"], m.compute()["WER_talks"]
(16.666666666666664, 1)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lightscore._extras import require
from lightscore.core.batch import RowError, feed
from lightscore.core.contract import Field, StateValue
from lightscore.core.metric import BaseMetric
from lightscore.metrics.error_rate_options import check_type
from lightscore.metrics.resegment_talks import segment_list, talk_batches

__all__ = ["RESEGMENT_METRICS", "Resegmented"]

RESEGMENT_METRICS = ("bleu", "chrf", "chrf++", "transter", "wer", "cer")
"""The metrics `Resegmented` builds by name (an instance of another text metric may be given instead)."""

_INNER = "metric."  # the prefix of the wrapped metric's states in this one's


def _build(name: str, options: dict[str, Any]) -> BaseMetric:
    """The wrapped metric called ``name``, built with ``options``."""
    if name in ("wer", "cer"):
        from lightscore.metrics.error_rate import CER, WER

        return (WER if name == "wer" else CER)(**options)
    from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate

    if name == "chrf++":
        options = {"word_order": 2, **options}
    return {"bleu": BLEU, "chrf": ChrF, "chrf++": ChrF, "transter": TranslationEditRate}[name](**options)


def _build_target(node: Mapping[str, Any]) -> Any:
    """A nested ``_target_`` config of a metrics YAML (measure() passes it on unbuilt), built once it names a metric."""
    from lightscore.core.targets import build_target

    def is_metric(target: Any) -> bool:
        return isinstance(target, type) and issubclass(target, BaseMetric)

    return build_target(node, "Resegmented.metric", allowed=is_metric, what="a lightscore BaseMetric subclass")


class Resegmented(BaseMetric):
    """A text metric on talk-level hypotheses re-segmented to the reference segments (mweralign's AS-WER cut).

    Args:
        metric: The metric scored on the segments: ``bleu``, ``chrf``, ``chrf++``, ``transter``, ``wer``,
            ``cer``, or a metric whose inputs are ``ref`` and ``hyp``: an instance (such as
            ``BLEU(tokenize="intl")``) or, in a metrics YAML, a nested ``_target_`` config.
        reseg_tokenize: The tokens the re-segmentation aligns, as mweralign's ``-m``: ``none`` (words, the
            default), ``cj`` (each Han character a token, for Chinese and Japanese), or the path of a
            local SentencePiece ``.model`` (named models are not downloaded).
        no_whitespace: With a SentencePiece model, the language is written without spaces (mweralign's
            ``-w``): segments may then start inside a word.
        options: The wrapped metric's options, when ``metric`` is a name (``tokenize="intl"`` is BLEU's).

    Raises:
        lightscore._extras.MissingExtraError: numba (the ``mt`` extra) is missing.
        TypeError, ValueError: an unknown metric or option, naming it.
        FileNotFoundError: ``reseg_tokenize`` is neither ``none`` nor ``cj`` nor a file.

    >>> Resegmented("bleu").settings()
    'Resegmented reseg_tokenize=none BLEU nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
    """

    def __init__(
        self,
        metric: str | BaseMetric | Mapping[str, Any] = "bleu",
        reseg_tokenize: str = "none",
        no_whitespace: bool = False,
        **options: Any,
    ) -> None:
        require(type(self).__name__, "mt", "numba")
        from lightscore.text.mt.resegment_tokens import tokenizer

        check_type("Resegmented", "reseg_tokenize", reseg_tokenize, (str, Path), "'none', 'cj' or a model path")
        check_type("Resegmented", "no_whitespace", no_whitespace, (bool,), "a bool")
        if isinstance(metric, str):
            if metric not in RESEGMENT_METRICS:
                raise ValueError(f"Resegmented: metric {metric!r} is not one of {', '.join(RESEGMENT_METRICS)}")
            metric = _build(metric, options)
        elif options:
            raise TypeError(f"Resegmented: options {', '.join(options)} are for a metric given by name")
        elif isinstance(metric, Mapping):
            metric = _build_target(metric)
        if not isinstance(metric, BaseMetric):
            raise TypeError(f"Resegmented: metric must be a name or a lightscore metric, got {type(metric).__name__}")
        required = {f.name for f in metric.inputs if not f.optional}
        if required - {"ref", "hyp"} or not {"ref", "hyp"} <= {f.name for f in metric.inputs}:
            raise TypeError(f"Resegmented: {type(metric).__name__} does not read one ref and one hyp per segment")
        self.metric = metric
        self.tokenizer = tokenizer(reseg_tokenize, no_whitespace)
        self.no_whitespace = no_whitespace
        self.name = str(getattr(metric, "name", type(metric).__name__))
        self.inputs = (
            Field("hyp", "text"),
            Field("ref", "text"),
            Field("ref_ids", "text", optional=True),
            Field("talk", "text", optional=True),
        )
        self.outputs = (*metric.outputs, Field(f"{self.name}_talks", "number"))
        self.add_state("talks", 0, "sum")
        self.add_state("resegmented", [], "cat")  # [talk, position, segment id, ref, hyp], kept for the artifact
        super().__init__()

    # -- the state: this metric's own, then the wrapped metric's under "metric." ------------------

    def _split(self, state: Mapping[str, StateValue]) -> tuple[dict[str, StateValue], dict[str, StateValue]]:
        own = {k: v for k, v in state.items() if not k.startswith(_INNER)}
        inner = {k[len(_INNER) :]: v for k, v in state.items() if k.startswith(_INNER)}
        return own, inner

    def state(self) -> dict[str, StateValue]:
        """This metric's states and the wrapped metric's (prefixed ``metric.``), deep copies."""
        return {**super().state(), **{_INNER + k: v for k, v in self.metric.state().items()}}

    def reset(self) -> None:
        """Reset this metric and the wrapped one."""
        super().reset()
        self.metric.reset()

    def merge_states(self, states: Sequence[Mapping[str, StateValue]]) -> dict[str, StateValue]:
        """Merge each part by its own rules: this metric's states and the wrapped metric's."""
        parts = [self._split(s) for s in states]
        own = super().merge_states([p[0] for p in parts])
        inner = self.metric.merge_states([p[1] for p in parts])
        return {**own, **{_INNER + k: v for k, v in inner.items()}}

    def load_state(self, state: Mapping[str, StateValue]) -> None:
        """Load both parts of a (merged) state."""
        own, inner = self._split(state)
        super().load_state(own)
        self.metric.load_state(inner)

    # -- the road --------------------------------------------------------------------------------

    def iter_batches(self, data: Mapping[str, Any]) -> Iterator[tuple[list[str], dict[str, list[str]]]]:
        """Talk rows from files: lockstep by talk, or with ``talk`` bound, references by segment grouped by talk."""
        if "talk" not in data:
            yield from super().iter_batches(data)
            return
        extra = [k for k in data if k not in ("hyp", "ref", "talk")]
        if extra:
            raise ValueError(f"Resegmented: with a talk map, {', '.join(extra)} come from the reference file's ids")
        yield from talk_batches(data, self.chunk_size)

    def update(
        self,
        *,
        hyp: Sequence[str],
        ref: Sequence[str],
        ref_ids: Sequence[str] | None = None,
        talk: Sequence[str] | None = None,
    ) -> None:
        """Re-segment each talk's ``hyp`` to its ``ref`` segments and feed the segments to the wrapped metric.

        Raises:
            ValueError: ``talk`` given here (it maps files' segments to talks; a row here is a whole talk).
            RowError: a talk with no reference segment, or ``ref_ids`` not one per segment.
        """
        from lightscore.text.mt.resegment import resegment_tokens

        if talk is not None:
            raise ValueError(
                "Resegmented.update(): 'talk' maps a reference file's segments to talks; "
                "update() takes one talk per row (its segments in 'ref')"
            )
        talks = self.batch_utt_ids or [f"talk{row}" for row in range(len(hyp))]
        seg_ids: list[str] = []
        refs: list[str] = []
        hyps: list[str] = []
        tok = self.tokenizer
        for row, (talk_id, text) in enumerate(zip(talks, hyp)):
            segments = segment_list(ref[row])
            if not segments:
                raise RowError(row, "Resegmented: the talk has no reference segment")
            ids = segment_list(ref_ids[row]) if ref_ids is not None else _default_ids(talk_id, len(segments))
            if len(ids) != len(segments):
                raise RowError(row, f"Resegmented: {len(segments)} reference segments but {len(ids)} ref_ids")
            pieces = resegment_tokens([tok.encode(s) for s in segments], tok.encode(text), tok)
            texts = [tok.decode(p) for p in pieces]
            if self.collect_artifacts:
                self.resegmented.extend([talk_id, k, i, r, h] for k, (i, r, h) in enumerate(zip(ids, segments, texts)))
            seg_ids += ids
            refs += segments
            hyps += texts
        feed(self.metric, {"ref": refs, "hyp": hyps}, seg_ids)
        self.talks += len(hyp)

    def compute(self) -> dict[str, float]:
        """The wrapped metric's result on the re-segmented segments, and the number of talks.

        Raises:
            ValueError: nothing was scored.
        """
        if self.talks == 0:
            raise ValueError(f"Resegmented {self.name}: no talk was scored")
        return {**self.metric.compute(), f"{self.name}_talks": self.talks}

    def settings(self) -> str:
        """How the talks were cut, then the wrapped metric's settings."""
        cut = f"reseg_tokenize={self.tokenizer.label}" + (" no_whitespace" if self.no_whitespace else "")
        inner = self.metric.settings() if hasattr(self.metric, "settings") else type(self.metric).__name__
        return f"Resegmented {cut} {inner}"

    # -- the artifact ----------------------------------------------------------------------------

    def write_artifacts(self, test_dir: Path) -> None:
        """Write the re-segmented hypothesis and its reference segments as SCP files keyed by segment.

        ``resegmented_<tokenize>.scp`` (``segment_id text``, in talk order, then segment order) and
        ``resegmented_<tokenize>_ref.scp`` beside it: any metric can score the pair again
        (``lightscore score resegmented_none_ref.scp resegmented_none.scp``).

        >>> import tempfile
        >>> from lightscore.core.runner import write_artifacts_of
        >>> d = Path(tempfile.mkdtemp())
        >>> _ = (d / "hyp.scp").write_text("t1 a b c\\n"); _ = (d / "ref.scp").write_text('t1 ["a b", "c"]\\n')
        >>> m = Resegmented("wer"); m({"hyp": d / "hyp.scp", "ref": d / "ref.scp"}, "dev", d)["WER"]
        0.0
        >>> print((d / "dev" / "resegmented_none.scp").read_text(), end="")
        t1_0001 a b
        t1_0002 c
        """
        from lightscore.scp.files import write_scp

        rows = sorted(self.resegmented, key=lambda r: (r[0], r[1]))
        stem = f"resegmented_{self.tokenizer.label}"
        write_scp(Path(test_dir) / f"{stem}.scp", ((r[2], r[4]) for r in rows))
        write_scp(Path(test_dir) / f"{stem}_ref.scp", ((r[2], r[3]) for r in rows))


def _default_ids(talk: str, count: int) -> list[str]:
    """``<talk>_0001``...: the segments' ids when none are given (sorted as the segments are).

    >>> _default_ids("t1", 2)
    ['t1_0001', 't1_0002']
    """
    width = max(4, len(str(count)))
    return [f"{talk}_{k:0{width}d}" for k in range(1, count + 1)]
