"""Root conftest: doctests of modules, README and docs run with a non-GUI backend."""

import matplotlib

matplotlib.use("Agg")
