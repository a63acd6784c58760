"""`make test` runs the tests that drive real processes and browsers in xdist groups
(tests/conftest.py), each on one worker that starts the site's processes once.
pytest-xdist passes a group to its scheduler by a suffix on the test's node id: when a pytest
release stops carrying it (pytest 9.2 with pytest-xdist 3.8, pytest-dev/pytest-xdist#1386),
the groups are silently ignored, every worker starts its own daphne, Celery and Chromium, and
the run is slower and less steady. This fails instead."""

import pytest


def test_the_process_tests_keep_to_their_groups(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("only on a worker of `--dist loadgroup`, as in make test")
    grouped = [i for i in request.session.items if i.get_closest_marker("xdist_group")]
    if not grouped:
        pytest.skip("no test of an xdist group collected in this run")
    lost = [i.nodeid for i in grouped if "@processes" not in i.nodeid]
    assert not lost, f"{len(lost)} grouped tests would not keep to their group: {lost[:3]}"
