# `make run` and `make test` bootstrap .venv themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run example test test-fast bench bench-int8 lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,dev,ray]'
	bash scripts/ensure_opencl.sh $(BIN)/python
	touch $(STAMP)

# The ResNet-50 graph from the onnx wheel (seeded weights), checked against onnxruntime, then benchmarked.
run: $(STAMP)
	$(BIN)/cldnn-py zoo --out .cache/models --models resnet50
	$(BIN)/cldnn-py benchmark .cache/models/resnet50_b1_s0.onnx --pc --check

# ResNet-50 built with the Topology API (examples/resnet50.py).
example: $(STAMP)
	$(BIN)/python examples/resnet50.py

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q tests

# A smoke run in minutes: skips the heavy whole-network checks (the zoo, ResNet-50 vs onnxruntime), the local Ray
# cluster tests and the Oclgrind runs of every OpenCL kernel (tests/oclgrind), and keeps the first 2
# parametrizations of every other test function per engine (tests/conftest.py, CLDNN_PY_TEST_FAST_CASES).
test-fast: $(STAMP)
	CLDNN_PY_TEST_FAST_CASES=2 $(BIN)/python -m pytest -n 2 -q -m 'not network and not ray and not oclgrind' tests

# The zoo's ResNet-50, AlexNet, GoogLeNet, SqueezeNet at batch 1 and 8 on every OpenCL device vs onnxruntime
# (a few minutes; table on stdout, JSON in .cache/bench.json). benchmarks/latency.py: the examples/ networks.
# `make bench PRECISION="f32 f16"` adds an f16-storage column per OpenCL device; `make bench-int8`: quantized
# ResNet-50, SqueezeNet, GoogLeNet (static QDQ, QOperator, dynamic) vs onnxruntime's int8 run (benchmarks/int8.py).
PRECISION ?= f32
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py --models all --precision $(PRECISION)

bench-int8: $(STAMP)
	$(BIN)/python benchmarks/int8.py

lint: $(STAMP)
	$(BIN)/ruff check cldnn_py kernel_selector tests examples benchmarks
	$(BIN)/mypy cldnn_py kernel_selector
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
