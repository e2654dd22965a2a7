"""The example metrics of BaseMetric's API reference (seed 000), shared by ``test_metric*.py``.

Importable as ``metric_examples`` (pytest puts ``tests/`` on sys.path).
"""

from __future__ import annotations

import math

from lightscore import BaseMetric, Field


class ExampleMetric(BaseMetric):
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("score", "number"),)

    def update(self, **values):
        pass

    def compute(self):
        return {"score": 0.0}


class ExampleVersaMetric(BaseMetric):
    def __init__(self, score_config):
        self.score_config = score_config
        self.inputs = (
            Field("hyp", "text"),
            Field("ref", "text", optional=True),
        )
        self.outputs = tuple(Field(name, "number") for name in score_config)
        super().__init__()

    def update(self, **values):
        pass

    def compute(self):
        return {name: 0.0 for name in self.score_config}


class ExampleBleuMetric(BaseMetric):
    inputs = (
        Field("hyp", "text"),
        Field("ref1", "text"),
        Field("ref2", "text", optional=True),
    )
    outputs = (Field("score", "number"),)

    def update(self, **values):
        pass

    def compute(self):
        return {"score": 0.0}


class ExampleSpeakerMetric(BaseMetric):
    inputs = (
        Field("target", "audio"),
        Field("hyp", "audio"),
        Field("ref", "audio", optional=True),
    )
    outputs = (Field("score", "number"),)

    def update(self, **values):
        pass

    def compute(self):
        return {"score": 0.0}


class HitsAndScores(BaseMetric):
    """The add_state example: one "sum" and one "cat" state."""

    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("accuracy", "number"), Field("mean_score", "number", optional=True))

    def __init__(self):
        super().__init__()
        self.add_state("hits", 0, "sum")  # after super().__init__() ...
        self.add_state("scores", [], "cat")

    def update(self, *, ref, hyp):
        for r, h in zip(ref, hyp):
            self.hits += r == h
            self.scores.append(float(r == h))

    def compute(self):
        if not self.scores:
            raise ValueError("nothing to score")
        return {"accuracy": self.hits / len(self.scores), "mean_score": math.fsum(self.scores) / len(self.scores)}


class Hits(BaseMetric):
    inputs = (Field("ref", "text"), Field("hyp", "text"))
    outputs = (Field("hits", "number"),)

    def __init__(self):
        self.add_state("hits", 0, "sum")  # ... or before it
        super().__init__()

    def update(self, *, ref, hyp):
        self.hits += sum(r == h for r, h in zip(ref, hyp))

    def compute(self):
        return {"hits": self.hits}
