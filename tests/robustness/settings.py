"""Shared knobs: Hypothesis settings and time budgets for the robustness suite."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("PI_LSP_HYPOTHESIS_EXAMPLES", "50"))


def bounded(examples: int = EXAMPLES) -> settings:
    """Derandomized (same examples on every run), bounded, and writing no database."""
    return settings(
        max_examples=examples,
        derandomize=os.environ.get("PI_LSP_HYPOTHESIS_RANDOM", "") in ("", "0"),
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


# every server request must answer within this (seconds)
REQUEST_TIMEOUT = float(os.environ.get("PI_LSP_FUZZ_TIMEOUT", "20"))
