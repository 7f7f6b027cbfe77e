"""Benchmarks: ``python -m bench [NAME]`` runs the ``main()`` of every ``bench/bench_*.py``."""
