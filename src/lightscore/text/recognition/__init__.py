"""Recognition practice: what papers report beside WER (issue 40).

Keywords and OOVs as texterrors counts them, oracle WER over n-best lists, punctuation and case errors,
and word timing. Pure functions over words and times; the metrics that hold their counts are in
`lightscore.metrics` (`KeywordErrorRate`, `OracleWER`, `PunctuationErrorRate`, `CaseErrorRate`, `PnCWER`,
`WordTiming`). See docs/recognition-practice.md.
"""
