"""Benchmarks: engine speed, storage and latency figures beside their reference values."""
