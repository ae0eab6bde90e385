"""sims: one module per classic experiment, plus a resumable runner (see sims.runner)."""
