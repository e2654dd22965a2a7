"""`SimulLatency` against SimulEval 1.1.4, the oracle: every latency measure, sentence and corpus, text and speech.

SimulEval's scorers run on SimulEval's own instance classes: a ``TextToTextInstance`` for a
text source scored in memory, a ``LogInstance`` (what ``--score-only`` and every run with
``--output`` score, a speech source as far as ATD is concerned) for a speech source. The
corpus values are compared with ``==``: lightscore's exact sums give ``statistics.mean``'s
correctly rounded mean, so nothing is left to a tolerance. A real SimulEval run (a wait-k
text agent) writes the ``instances.log`` the reader and ``lightscore score`` are checked on.
"""

from __future__ import annotations

import json
import logging
import statistics
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightscore.core.batch import feed
from lightscore.metrics.simul_latency import SimulLatency
from lightscore.text.mt.instance_log import read_instance_log
from lightscore.text.mt.simul_latency import MEASURES, parse_times, sentence_latency

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # pydub, imported by simuleval, warns that ffmpeg is missing
    from simuleval.evaluator.instance import LogInstance, TextToTextInstance
    from simuleval.evaluator.scorers.latency_scorer import LATENCY_SCORERS_DICT

logging.getLogger("simuleval").setLevel(logging.ERROR)  # "Instance i has no delay information. Skipped"

pytestmark = pytest.mark.filterwarnings(
    "ignore:The .warn. method is deprecated:DeprecationWarning"
)  # SimulEval logs with warn
WORDS = "the a cat dog sat ran on mat hill river".split()


# -- the oracle ---------------------------------------------------------------------------------


def log_instance(index, delays, source_length, reference=None, elapsed=(), unit="word"):
    """A SimulEval ``LogInstance``, as ``--score-only`` reads one line of instances.log."""
    line = {"index": index, "delays": list(delays), "elapsed": list(elapsed), "source_length": source_length}
    return LogInstance(json.dumps({**line, "reference": reference, "prediction": ""}), unit)


def text_instance(index, delays, source_length, reference=None, unit="word"):
    """A SimulEval ``TextToTextInstance`` after a run: its source words read, its delays and (zero) elapsed times."""
    instance = TextToTextInstance(index, None, None)
    instance.source = ["w"] * source_length
    instance.reference, instance.latency_unit = reference, unit
    instance.delays, instance.elapsed = list(delays), [0] * len(delays)
    return instance


def simuleval_scores(instances, measures=MEASURES, computation_aware=False, use_ref_len=True):
    """SimulEval's corpus value of each measure (and its ``_CA`` twin), as its evaluator names them."""
    scores = {}
    for name in measures:
        for aware in (False, True) if computation_aware else (False,):
            scorer = LATENCY_SCORERS_DICT[name](computation_aware=aware, use_ref_len=use_ref_len)
            scores[f"{name}_CA" if aware else name] = scorer(dict(enumerate(instances)))
    return scores


def lightscore_scores(rows, source, computation_aware=False, use_ref_len=True, unit="word", split=None):
    """`SimulLatency` on ``rows`` (dicts of update inputs), fed whole or split over two metrics and merged."""

    def batch(part):
        keys = part[0].keys()
        return {k: [row[k] for row in part] for k in keys}

    options = {"source": source, "computation_aware": computation_aware, "use_ref_len": use_ref_len, "unit": unit}
    if split is None:
        metric = SimulLatency(**options)
        metric.update(**batch(rows))
        return metric.compute()
    first, second = SimulLatency(**options), SimulLatency(**options)
    first.update(**batch(rows[:split])) if rows[:split] else None
    second.update(**batch(rows[split:])) if rows[split:] else None
    merged = SimulLatency(**options)
    merged.load_state(merged.merge_states([first.state(), second.state()]))
    return merged.compute()


# -- generated instances --------------------------------------------------------------------------


@st.composite
def references(draw):
    """None, or words joined by one space (sometimes two: SimulEval counts an empty word then)."""
    if draw(st.booleans()):
        return None
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=25))
    return draw(st.sampled_from([" ", "  "])).join(words) if len(words) > 1 else words[0]


@st.composite
def text_rows(draw):
    """A text source: n words, delays the words read (0 .. n, not decreasing), some empty hypotheses."""
    n = draw(st.integers(1, 20))
    delays = sorted(draw(st.lists(st.integers(0, n), max_size=30)))
    if draw(st.integers(0, 5)) == 0:
        delays = [n] * len(delays)  # everything written at the end
    return {"delays": delays, "source_length": n, "ref": draw(references())}


@st.composite
def speech_rows(draw):
    """A speech source in ms: delays read in 40 ms steps or any float; elapsed = delay + computing time so far."""
    length = draw(st.one_of(st.integers(40, 20_000).map(float), st.floats(1.0, 20_000.0)))
    grid = draw(st.booleans())
    step = st.integers(0, int(length) // 40).map(lambda k: 40.0 * k) if grid else st.floats(0.0, length)
    delays = sorted(draw(st.lists(step, max_size=30)))
    if draw(st.integers(0, 5)) == 0:
        delays = [length] * len(delays)
    if delays and draw(st.integers(0, 5)) == 0:
        delays[0] = length + draw(st.floats(1.0, 500.0))  # past the source's end: AL is the first delay
        delays = sorted(delays)
    computing = draw(st.lists(st.floats(0.0, 300.0), min_size=len(delays), max_size=len(delays)))
    waited, elapsed = 0.0, []
    for delay, extra in zip(delays, computing):
        waited += extra
        elapsed.append(delay + waited)
    return {"delays": delays, "source_length": length, "ref": draw(references()), "elapsed": elapsed}


def _with_one_hypothesis(rows):
    return any(row["delays"] for row in rows)


# -- SimulEval's own examples -------------------------------------------------------------------


SIMULEVAL_DELAYS = [1, 1, 2, 3, 5, 7, 7, 9]  # simuleval/test/test_latency_metrics.py: a 9-word source
SIMULEVAL_SHORT = [5, 7, 9]  # its short hypothesis, against a reference of 5 words


def test_simuleval_examples():
    """SimulEval's test inputs: each measure, text and speech, equals its scorers; the values are pinned too."""
    reference = "a b c d e"
    for delays in (SIMULEVAL_DELAYS, SIMULEVAL_SHORT):
        for source, make in (("text", text_instance), ("speech", log_instance)):
            expected = simuleval_scores([make(0, delays, 9, reference)])
            assert sentence_latency(delays, 9, 5, source=source) == expected
    # Its test's own formulas, worked by hand: AL with the hypothesis' length, LAAL with max(3, 5) = 5.
    assert sentence_latency(SIMULEVAL_DELAYS, 9, measures=("AL", "AP", "DAL")) == {
        "AL": 0.4375,
        "AP": 0.4861111111111111,
        "DAL": 1.140625,
    }
    assert sentence_latency(SIMULEVAL_SHORT, 9, 5, measures=("LAAL",)) == {"LAAL": 5.2}


def test_all_at_end_and_past_the_end():
    """Every token written after the whole source (AL's tau is 1), and a first delay past the source's end."""
    rows = [{"delays": [9, 9, 9], "source_length": 9, "ref": "a b"}, {"delays": [12, 12], "source_length": 9}]
    expected = simuleval_scores([log_instance(0, [9, 9, 9], 9, "a b"), log_instance(1, [12, 12], 9)])
    rows[1]["ref"] = None
    got = SimulLatency()
    got.update(delays=[r["delays"] for r in rows], source_length=[9, 9], ref_length=[2, None])
    result = got.compute()
    assert {k: result[k] for k in expected} == expected
    assert result["AL"] == (9.0 + 12) / 2  # AL of [9, 9, 9] is its first delay 9; of [12, 12] the first delay 12


# -- generated: text and speech, computation aware -----------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(text_rows(), min_size=1, max_size=6).filter(_with_one_hypothesis),
    st.sampled_from(("word", "char")),
    st.booleans(),
    st.data(),
)
def test_text_source_equals_simuleval(rows, unit, use_ref_len, data):
    """A text source scored in memory by SimulEval: every measure's corpus value, whole and split over two ranks."""
    if unit == "char" and any(row["ref"] is not None and not row["ref"].strip() for row in rows):
        return
    instances = [text_instance(i, r["delays"], r["source_length"], r["ref"], unit) for i, r in enumerate(rows)]
    expected = simuleval_scores(instances, use_ref_len=use_ref_len)
    fed = [_lengths(row, unit) for row in rows]
    split = data.draw(st.integers(0, len(rows)))
    for how in (None, split):
        result = lightscore_scores(fed, "text", use_ref_len=use_ref_len, unit=unit, split=how)
        assert {k: result[k] for k in expected} == expected
        assert result["latency_empty"] == sum(not row["delays"] for row in rows)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(speech_rows(), min_size=1, max_size=6).filter(_with_one_hypothesis), st.booleans(), st.data())
def test_speech_source_computation_aware_equals_simuleval(rows, use_ref_len, data):
    """A speech source as SimulEval scores its log: every measure and its _CA twin, whole and split."""
    instances = [log_instance(i, r["delays"], r["source_length"], r["ref"], r["elapsed"]) for i, r in enumerate(rows)]
    expected = simuleval_scores(instances, computation_aware=True, use_ref_len=use_ref_len)
    fed = [{**_lengths(row, "word"), "elapsed": row["elapsed"]} for row in rows]
    split = data.draw(st.integers(0, len(rows)))
    for how in (None, split):
        result = lightscore_scores(fed, "speech", computation_aware=True, use_ref_len=use_ref_len, split=how)
        assert {k: result[k] for k in expected} == expected


def _lengths(row, unit):
    """A generated row as update() inputs: the reference as its length (None: none), counted as SimulEval."""
    from lightscore.text.mt.simul_latency import reference_length

    ref = row["ref"]
    return {
        "delays": row["delays"],
        "source_length": row["source_length"],
        "ref_length": None if ref is None else reference_length(ref, unit),
    }


def test_reference_text_and_length_agree():
    """``ref`` (the text) and ``ref_length`` (its length) give the same numbers."""
    by_text, by_length = SimulLatency(source="text"), SimulLatency(source="text")
    by_text.update(delays=[[2, 3, 5]], source_length=[5], ref=["das  ist ein test"])
    by_length.update(delays=[[2, 3, 5]], source_length=[5], ref_length=[5])  # two spaces: an empty word
    assert by_text.compute() == by_length.compute()


def test_empty_hypotheses():
    """SimulEval skips an instance with no delays; so does lightscore, counting it. None at all: an error."""
    metric = SimulLatency(source="text")
    metric.update(delays=[[], [1, 2], ""], source_length=[3, 3, 4])
    expected = simuleval_scores([text_instance(0, [], 3), text_instance(1, [1, 2], 3), text_instance(2, [], 4)])
    result = metric.compute()
    assert {k: result[k] for k in expected} == expected
    assert (result["latency_instances"], result["latency_empty"]) == (1, 2)
    with pytest.raises(statistics.StatisticsError):
        simuleval_scores([text_instance(0, [], 3)], measures=("AL",))
    empty = SimulLatency()
    empty.update(delays=[[]], source_length=[3])
    with pytest.raises(ValueError, match="no instance has delays"):
        empty.compute()


# -- the callback's values, bad input --------------------------------------------------------------


def test_step_values_tensors_and_arrays():
    """A step's delays as torch tensors or numpy arrays, fed as the callback feeds a batch, give the lists' numbers."""
    torch = pytest.importorskip("torch")
    lists = SimulLatency(computation_aware=True)
    lists.update(delays=[[320.0, 640.0]], source_length=[1000.0], elapsed=[[400.0, 800.0]], ref=["a b c"])
    tensors = SimulLatency(computation_aware=True)
    batch = {
        "delays": [torch.tensor([320.0, 640.0])],
        "source_length": [torch.tensor(1000.0)],
        "elapsed": [np.array([400.0, 800.0])],
        "ref": ["a b c"],
    }
    feed(tensors, batch, ["utt1"])
    assert tensors.compute() == lists.compute()


def test_bad_rows_are_named():
    """A decreasing delay, a bad source length, elapsed of another length: the utterance and the problem named."""
    metric = SimulLatency()
    with pytest.raises(ValueError, match=r"utterance 'u2'.*delays must not decrease: 1 follows 5"):
        feed(metric, {"delays": [[1, 2], [5, 1]], "source_length": [9, 9]}, ["u1", "u2"])
    with pytest.raises(ValueError, match=r"utterance 'u1'.*source length must be > 0"):
        feed(metric, {"delays": [[1]], "source_length": [0]}, ["u1"])
    with pytest.raises(ValueError, match=r"utterance 'u1'.*'x' is not a number"):
        feed(metric, {"delays": ["1 x"], "source_length": [3]}, ["u1"])
    aware = SimulLatency(computation_aware=True)
    with pytest.raises(ValueError, match=r"elapsed has 1 times for 2 delays"):
        feed(aware, {"delays": [[1, 2]], "source_length": [3], "elapsed": [[4]]}, ["u1"])
    with pytest.raises(ValueError, match="ref or ref_length, not both"):
        metric.update(delays=[[1]], source_length=[2], ref=["a"], ref_length=[1])
    with pytest.raises(ValueError, match="needs a speech source"):
        SimulLatency(source="text", computation_aware=True)
    with pytest.raises(ValueError, match="measures 'BLEU' is not one of"):
        SimulLatency(measures=["AL", "BLEU"])


def test_seconds():
    """``time_unit="s"``: delays in seconds give the millisecond values over 1000 (ATD's word is 0.3 s)."""
    in_ms, in_s = SimulLatency(), SimulLatency(time_unit="s")
    in_ms.update(delays=[[500, 500, 1250, 2000]], source_length=[2000], ref=["a b c d"])
    in_s.update(delays=[[0.5, 0.5, 1.25, 2.0]], source_length=[2.0], ref=["a b c d"])
    ms, s = in_ms.compute(), in_s.compute()
    for key in MEASURES:
        assert s[key] == pytest.approx(ms[key] / 1000 if key != "AP" else ms[key])


# -- instances.log: a real SimulEval run, and logs written as SimulEval writes them --------------------


def _simuleval_run(folder: Path, monkeypatch) -> Path:
    """Run SimulEval on a wait-2 text agent over three sentences; return its instances.log."""
    from simuleval.agents import TextToTextAgent
    from simuleval.agents.actions import ReadAction, WriteAction
    from simuleval.cli import evaluate

    class WaitTwo(TextToTextAgent):
        def policy(self, states=None):
            states = states or self.states
            lagging = len(states.source) - len(states.target)
            if lagging >= 2 or states.source_finished:
                finished = states.source_finished and lagging <= 1
                return WriteAction(f"w{len(states.target)}", finished=finished)
            return ReadAction()

    (folder / "src.txt").write_text("a b c d e f\ng h i\nj k l m n o p q\n")
    (folder / "tgt.txt").write_text("A B C D E\nG H I J\nJ K L\n")
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "argv", ["simuleval"])  # SimulEval reads its options from sys.argv too
    config = {"source": "src.txt", "target": "tgt.txt", "output": "out", "no_progress_bar": True}
    evaluate(WaitTwo, {**config, "latency_metrics": " ".join(MEASURES), "quality_metrics": "BLEU"})
    return folder / "out" / "instances.log"


def _score_only(output: Path, computation_aware: bool = False) -> dict:
    """SimulEval's ``--score-only`` on a folder: its evaluator's unrounded latency values."""
    from simuleval import options
    from simuleval.evaluator import SentenceLevelEvaluator

    argv = ["--score-only", "--output", str(output), "--latency-metrics", *MEASURES]
    argv += ["--computation-aware"] if computation_aware else []
    parser = options.general_parser()
    options.add_evaluator_args(parser)
    options.add_scorer_args(parser, argv)
    options.add_dataloader_args(parser, argv)
    return SentenceLevelEvaluator.from_args(parser.parse_args(argv)).latency


def test_real_simuleval_log(tmp_path, monkeypatch, capsys):
    """A log SimulEval wrote: read back as written, and ``lightscore score`` prints SimulEval's scores.tsv."""
    from lightscore.cli import main

    log = _simuleval_run(tmp_path, monkeypatch)
    records = read_instance_log(log)
    assert [(r.index, r.delays, r.source_length) for r in records] == [
        (0, [2, 3, 4, 5, 6, 6], 6),
        (1, [2, 3, 3], 3),
        (2, [2, 3, 4, 5, 6, 7, 8, 8], 8),
    ]
    expected = _score_only(log.parent)
    result = lightscore_scores(
        [{"delays": r.delays, "source_length": r.source_length, "ref": r.reference} for r in records], "speech"
    )
    assert {k: result[k] for k in expected} == expected
    capsys.readouterr()
    assert main(["score", "--metric", "simul_latency", "-", str(log)]) == 0
    printed = capsys.readouterr().out.splitlines()
    tsv = (log.parent / "scores.tsv").read_text().splitlines()
    values = dict(zip(printed[0].split(), printed[1].split()))
    assert {k: float(values[k]) for k in MEASURES} == {
        k: float(v) for k, v in zip(tsv[0].split("\t"), tsv[1].split("\t")) if k in MEASURES
    }
    # REF as SimulEval's --target: the same references, the same numbers.
    assert main(["score", "--metric", "simul_latency", str(tmp_path / "tgt.txt"), str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == printed[:2]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(speech_rows(), min_size=1, max_size=5).filter(_with_one_hypothesis))
def test_speech_log_equals_simuleval(tmp_path_factory, rows):
    """A speech-to-text log as SimulEval writes it: read by lightscore, and by SimulEval line by line as
    ``--score-only`` reads it (``LogInstance``); every measure and its _CA twin equal."""
    log = _write_log(tmp_path_factory.mktemp("log"), rows)
    with open(log) as f:
        instances = [LogInstance(line.strip(), "word") for line in f]
    expected = simuleval_scores(instances, computation_aware=True)
    result = _score_log(log)
    assert {k: result[k] for k in expected} == expected


def test_speech_log_score_only(tmp_path):
    """SimulEval's own ``--score-only`` evaluator on a speech log. With ``--computation-aware`` it scores its
    AL, ATD ... from the elapsed times too (so AL == AL_CA there); lightscore's AL stays the delays' AL."""
    rows = [
        {"delays": [640.0, 640.0, 1280.0], "elapsed": [700.0, 720.5, 1400.0], "source_length": 1500.0, "ref": "a b"},
        {"delays": [320.0, 960.0, 990.0], "elapsed": [330.0, 1000.0, 1100.0], "source_length": 990.0, "ref": None},
    ]
    log = _write_log(tmp_path, rows)
    plain, aware = _score_only(tmp_path), _score_only(tmp_path, computation_aware=True)
    result = _score_log(log)
    assert {k: result[k] for k in plain} == plain
    assert {k: result[k] for k in aware if k.endswith("_CA")} == {k: v for k, v in aware.items() if k.endswith("_CA")}
    assert aware["AL"] == aware["AL_CA"] != plain["AL"]


def _write_log(folder: Path, rows) -> Path:
    """``rows`` as SimulEval's speech-to-text instances.log (and the config.yaml its --score-only reads)."""
    (folder / "config.yaml").write_text("source_type: speech\ntarget_type: text\n")
    with open(folder / "instances.log", "w") as f:
        for i, row in enumerate(rows):
            line = {"index": i, "prediction": " ".join(["x"] * len(row["delays"])), "delays": row["delays"]}
            line |= {"elapsed": row["elapsed"], "prediction_length": len(row["delays"]), "reference": row["ref"]}
            line |= {"source": ["audio.wav"], "source_length": row["source_length"]}
            f.write(json.dumps(line) + "\n")
    return folder / "instances.log"


def _score_log(log: Path) -> dict:
    """lightscore's reader, then `SimulLatency` (speech, computation aware) on the log's instances."""
    records = read_instance_log(log)
    fed = [
        {"delays": r.delays, "source_length": r.source_length, "elapsed": r.elapsed, "ref_length": _length(r.reference)}
        for r in records
    ]
    return lightscore_scores(fed, "speech", computation_aware=True)


def _length(reference):
    return None if reference is None else len(reference.split(" "))


def test_log_errors_name_file_and_line(tmp_path):
    """A malformed line: the file, the line (and the instance's index) named."""
    log = tmp_path / "instances.log"
    good = json.dumps({"index": 0, "delays": [1, 2], "elapsed": [], "source_length": 3, "reference": "a"})
    cases = [
        ("{not json", "line 2: not JSON"),
        (json.dumps({"index": 1, "delays": [3, 1], "source_length": 3}), r"line 2 \(index 1\): delays must not"),
        (json.dumps({"index": 0, "delays": [1], "source_length": 3}), "line 2: index 0 is on line 1 too"),
        (json.dumps({"index": 1, "source_length": 3}), "line 2: no 'delays'"),
        (json.dumps({"index": 1, "delays": [1], "source_length": 3, "durations": [200.0]}), "line 2: a speech output"),
        (
            json.dumps({"index": 1, "delays": "1 2", "source_length": 3}),
            r"line 2 \(index 1\): delays must be a JSON array",
        ),
    ]
    for line, message in cases:
        log.write_text(f"{good}\n{line}\n")
        with pytest.raises(ValueError, match=f"{log}, {message}"):
            read_instance_log(log)


def test_write_latency_scps_and_measure(tmp_path):
    """A log turned into SCP files, bound in a metrics YAML: measure() gives what ``lightscore score`` gives."""
    import lightscore
    from lightscore.cli.latency import write_latency_scps

    log = tmp_path / "instances.log"
    lines = [
        {"index": 0, "delays": [640.0, 640.0, 1280.0], "elapsed": [700.0, 720.5, 1400.0], "source_length": 1500.0},
        {"index": 1, "delays": [320.0, 960.0], "elapsed": [330.0, 1000.0], "source_length": 990.0},
    ]
    log.write_text("".join(json.dumps({**line, "reference": "a b c"}) + "\n" for line in lines))
    written = write_latency_scps(log, tmp_path / "exp" / "dev")
    assert sorted(written) == ["delays", "elapsed", "ref_length", "source_length"]
    assert (tmp_path / "exp/dev/delays.scp").read_text() == "0 640.0 640.0 1280.0\n1 320.0 960.0\n"
    config = {
        "inference_dir": str(tmp_path / "exp"),
        "metrics": [
            {
                "metric": {"_target_": "lightscore.metrics.SimulLatency", "computation_aware": True},
                "inputs": ["delays", "source_length", "elapsed", "ref_length"],
                "name": "latency",
            }
        ],
    }
    result = lightscore.measure(config)["latency"]["dev"]
    expected = simuleval_scores(
        [log_instance(r["index"], r["delays"], r["source_length"], "a b c", r["elapsed"]) for r in lines],
        computation_aware=True,
    )
    assert {k: result[k] for k in expected} == expected


def test_parse_times():
    """SCP strings, lists and arrays read alike; ints stay ints (SimulEval's text delays are ints)."""
    assert parse_times("1 2 2.5") == [1, 2, 2.5]
    assert parse_times(np.array([1.0, 2.0])) == [1.0, 2.0]
    with pytest.raises(ValueError, match="not a finite number >= 0"):
        parse_times([1, float("nan")])
    with pytest.raises(ValueError, match="not a finite number >= 0"):
        parse_times("-1")


def test_cli_errors_and_options(tmp_path, capsys):
    """``lightscore score --metric simul_latency``: a bad instance named by file, line and index; REF too short;
    ``--no-use-ref-len`` and ``--latency-unit char`` as SimulEval's options."""
    from lightscore.cli import main

    log = tmp_path / "instances.log"
    rows = [
        {"index": 0, "delays": [2, 3, 5], "elapsed": [0, 0, 0], "source_length": 5, "reference": "ab cd ef gh"},
        {"index": 1, "delays": [1, 4], "elapsed": [0, 0], "source_length": 4, "reference": "x"},
    ]
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for flags, unit, use_ref_len in (
        ([], "word", True),
        (["--no-use-ref-len"], "word", False),
        (["--latency-unit", "char"], "char", True),
    ):
        assert main(["score", "--metric", "simul_latency", "-", str(log), *flags]) == 0
        printed = capsys.readouterr().out.splitlines()
        instances = [log_instance(r["index"], r["delays"], r["source_length"], r["reference"], unit=unit) for r in rows]
        expected = simuleval_scores(instances, use_ref_len=use_ref_len)
        values = dict(zip(printed[0].split(), printed[1].split()))
        assert {k: values[k] for k in expected} == {k: f"{v:.3f}" for k, v in expected.items()}
    short_ref = tmp_path / "one_line.txt"
    short_ref.write_text("only one reference\n")
    assert main(["score", "--metric", "simul_latency", str(short_ref), str(log)]) == 1
    assert "no line 2 for instance 1 (the file has 1 lines)" in capsys.readouterr().err
    rows[1]["source_length"] = 0
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(["score", "--metric", "simul_latency", "-", str(log)]) == 1
    assert f"{log}, line 2 (index 1): the source length must be > 0" in capsys.readouterr().err
    assert (
        main(["score", "--metric", "simul_latency", "-", str(log), "--latency-source", "text", "--computation-aware"])
        == 1
    )
    assert "needs a speech source" in capsys.readouterr().err
