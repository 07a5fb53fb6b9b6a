#!/usr/bin/env bash
# An OTLP/HTTP logs and metrics receiver that decodes with the official `opentelemetry-proto` package (PyPI),
# not with HybridKit's own code: what OTLPExporterTests send to. Installs the package once into
# .build/otlp-venv (pip), then runs scripts/otlp-receiver.py OUT.jsonl, which prints its port.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/otlp-venv
if ! "$venv/bin/python" -c 'import opentelemetry.proto.collector.logs.v1.logs_service_pb2, opentelemetry.proto.collector.metrics.v1.metrics_service_pb2' 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet 'opentelemetry-proto>=1.27,<2' >&2
fi
exec "$venv/bin/python" scripts/otlp-receiver.py "$@"
