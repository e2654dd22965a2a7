"""The running-minimum row closure (`lightscore.text.dp_rows.close_row`) against its plain loop."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lightscore.text.dp_rows import close_row, close_row_plain

costs = st.integers(min_value=0, max_value=50)


@given(
    st.lists(costs, min_size=1, max_size=30).flatmap(
        lambda v: st.tuples(st.just(v), st.lists(costs, min_size=len(v) - 1, max_size=len(v) - 1))
    )
)
def test_close_row_equals_the_loop(case):
    v, insert = case
    steps = np.concatenate([[0], np.cumsum(insert, dtype=np.int64)])
    assert close_row(np.array(v, dtype=np.int64), steps).tolist() == close_row_plain(v, insert)


@given(st.lists(st.lists(costs, min_size=5, max_size=5), min_size=1, max_size=4))
def test_close_row_closes_every_row_of_a_batch_in_place(rows):
    v = np.array(rows, dtype=np.int64)
    expected = [close_row_plain(row, [1] * 4) for row in rows]
    assert close_row(v, np.arange(5), out=v) is v
    assert v.tolist() == expected
