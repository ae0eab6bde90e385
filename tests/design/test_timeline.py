"""The timeline's seconds waited for a core (``--record-timeline``, root
``conftest.py``) are the machine's load only (issue 37): a thread of the worker that
ends while the waits are read (a test's server answering requests) is left out of
the reading, not the whole reading, which made a test's waited seconds jump by the
worker's total and its sleep (wall - CPU - waited) by as much (81 s in a file of 4 s)."""

import threading


def test_threads_ending_while_the_waits_are_read_lose_only_themselves(root_conftest):
    me = str(threading.get_native_id())
    stop = threading.Event()

    def churn():  # threads that start and end while the main thread reads
        while not stop.is_set():
            short = threading.Thread(target=lambda: None)
            short.start()
            short.join()

    churners = [threading.Thread(target=churn) for _ in range(4)]
    for thread in churners:
        thread.start()
    try:
        readings = [root_conftest._queued_by_thread() for _ in range(300)]
    finally:
        stop.set()
        for thread in churners:
            thread.join()
    assert all(me in reading for reading in readings)


def test_waits_count_the_threads_alive_at_the_end_from_zero_if_new(root_conftest):
    before = {"1": 4_000_000_000, "2": 3_000_000_000}
    after = {"1": 5_000_000_000, "3": 250_000_000}  # 2 ended, 3 started in between
    assert root_conftest.waited_seconds(before, after) == 1.25
    assert root_conftest.waited_seconds(after, {}) == 0  # none left: no negative wait
