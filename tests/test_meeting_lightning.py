"""The meeting metrics on the Lightning road: a real 2-process gloo Trainer run whose ``validation_step``
returns lists of segments per session equals a 1-process run and ``measure()`` over SCP files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ddp_scripts import meeting_lightning
from ddp_scripts.launch import free_port, run_scripts

from lightscore import measure
from lightscore.segments import write_session_scps


def write_files(root: Path) -> None:
    """The run's sessions as STM (words) and RTTM (speech) files, and the SCPs measure() reads."""
    sessions = meeting_lightning.corpus()
    for side, pick in (("ref", 0), ("hyp", 1)):
        stm = [f"{sid} 1 {s.speaker} {s.start!r} {s.end!r} {s.words}" for sid, p in sessions.items() for s in p[pick]]
        rttm = [
            f"SPEAKER {sid} 1 {s.start!r} {s.end - s.start!r} <NA> <NA> {s.speaker} <NA> <NA>"
            for sid, p in sessions.items()
            for s in p[pick]
        ]
        (root / f"{side}.stm").write_text("\n".join(stm) + "\n")
        (root / f"{side}.rttm").write_text("\n".join(rttm) + "\n")
    write_session_scps(root / "ref.stm", root / "hyp.stm", root / "words" / "dev")
    write_session_scps(root / "ref.rttm", root / "hyp.rttm", root / "speech" / "dev")


def config(root: Path, targets: dict[str, dict]) -> dict:
    entries = [{"metric": {"_target_": t, **args}, "inputs": ["ref", "hyp"]} for t, args in targets.items()]
    return {"inference_dir": str(root), "metrics": entries}


@pytest.mark.slow
def test_two_gloo_ranks_equal_one_and_measure(tmp_path) -> None:
    for n in ("1", "2"):
        (tmp_path / n).mkdir()
    runs = run_scripts(
        [["meeting_lightning.py", str(tmp_path / n), "--devices", n] for n in ("1", "2")], free_port(), timeout=400
    )
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    one = json.loads((tmp_path / "1" / "rank0.json").read_text())["results"]
    for rank in (0, 1):
        assert json.loads((tmp_path / "2" / f"rank{rank}.json").read_text())["results"] == one
    assert one["val/cpWER_sessions"] == 11 and one["val/DER_sessions"] == 11  # the sampler's repeat dropped
    write_files(tmp_path)
    words = measure(
        config(
            tmp_path / "words",
            {
                "lightscore.metrics.meeting_wer.CPWER": {},
                "lightscore.metrics.meeting_wer.ORCWER": {},
                "lightscore.metrics.meeting_wer.TCPWER": {"collar": 1.0},
            },
        )
    )
    speech = measure(
        config(
            tmp_path / "speech",
            {
                "lightscore.metrics.meeting.DER": {"collar": 0.25},
                "lightscore.metrics.meeting.JER": {"convention": "pyannote"},
            },
        )
    )
    offline = {}
    for results in (words, speech):
        for per_test in results.values():
            offline.update({f"val/{k}": v for k, v in per_test["dev"].items()})
    assert offline == one


@pytest.mark.slow
def test_save_dir_writes_sessions_that_measure_scores_alike(tmp_path) -> None:
    """Issue 24: ``save_dir`` writes the segments inputs (SegLST JSON per session); measure() over them agrees."""
    from ddp_scripts.toy_asr import cpu_trainer
    from torch.utils.data import DataLoader

    from lightscore.lightning import MetricCallback
    from lightscore.segments import session_segments

    callback = MetricCallback(meeting_lightning.metrics(), save_dir=tmp_path / "saved")
    trainer = cpu_trainer(1, [callback], default_root_dir=tmp_path)
    loader = DataLoader(meeting_lightning.Sessions(), batch_size=2, collate_fn=meeting_lightning.collate)
    trainer.validate(meeting_lightning.MeetingModule(), dataloaders=loader)
    logged = callback.results["validate"]
    test_dir = tmp_path / "saved" / "validate"
    assert sorted(p.name for p in test_dir.iterdir()) == ["hyp.scp", "ref.scp"]
    corpus = meeting_lightning.corpus()
    for side, pick in (("ref", 0), ("hyp", 1)):
        lines = (test_dir / f"{side}.scp").read_text().splitlines()
        assert [line.split(" ", 1)[0] for line in lines] == sorted(corpus)
        for line in lines:
            session, value = line.split(" ", 1)
            read = [(s.speaker, s.start, s.end, s.words) for s in session_segments(value, session)]
            assert read == [(s.speaker, s.start, s.end, s.words) for s in corpus[session][pick]]
    targets = {
        "lightscore.metrics.meeting_wer.CPWER": {},
        "lightscore.metrics.meeting_wer.ORCWER": {},
        "lightscore.metrics.meeting_wer.TCPWER": {"collar": 1.0},
        "lightscore.metrics.meeting.DER": {"collar": 0.25},
        "lightscore.metrics.meeting.JER": {"convention": "pyannote"},
    }
    offline = {
        f"val/{k}": v
        for per_test in measure(config(tmp_path / "saved", targets)).values()
        for k, v in per_test["validate"].items()
    }
    assert offline == logged
    assert logged["val/cpWER_sessions"] == 11
