"""OTLP/HTTP logs and metrics receiver for the exporter's tests (run through scripts/otlp-receiver.sh).

POST /v1/logs: gunzips (Content-Encoding: gzip), decodes an ExportLogsServiceRequest with the
official opentelemetry-proto classes (a payload they cannot parse gets 400) and appends one JSON
line per log record to OUT.jsonl. POST /v1/metrics: the same for an ExportMetricsServiceRequest,
one JSON line per data point to OUT.jsonl.metrics. POST /control with a status code as the body makes /v1/logs
answer that status instead (503: the collector is down) until set back to 200. Prints its port.
"""
import gzip
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2

out_path = sys.argv[1]
state = {"status": 200}
lock = threading.Lock()


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Handler(BaseHTTPRequestHandler):
    def reply(self, status, body=b"", content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/control":
            state["status"] = int(body)
            return self.reply(200)
        if self.path not in ("/v1/logs", "/v1/metrics"):
            return self.reply(404)
        if state["status"] != 200:
            return self.reply(state["status"])
        if self.path == "/v1/metrics":
            return self.metrics(body)
        request = self.decode(body, logs_service_pb2.ExportLogsServiceRequest)
        if request is None:
            return
        lines = []
        for resource_logs in request.resource_logs:
            resource = {kv.key: value(kv.value) for kv in resource_logs.resource.attributes}
            for scope_logs in resource_logs.scope_logs:
                for record in scope_logs.log_records:
                    lines.append(json.dumps({
                        "resource": resource,
                        "scope": scope_logs.scope.name,
                        "time_unix_nano": record.time_unix_nano,
                        "observed_time_unix_nano": record.observed_time_unix_nano,
                        "severity_number": record.severity_number,
                        "severity_text": record.severity_text,
                        "body": value(record.body),
                        "event_name": record.event_name,
                        "attributes": {kv.key: value(kv.value) for kv in record.attributes},
                        "gzip": self.headers.get("Content-Encoding") == "gzip",
                    }))
        with lock, open(out_path, "a") as out:
            out.write("".join(line + "\n" for line in lines))
        self.reply(200, logs_service_pb2.ExportLogsServiceResponse().SerializeToString(), "application/x-protobuf")

    def decode(self, body, message):
        """The request as `message` (gunzipped when so encoded), or None after answering 400."""
        try:
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            return message.FromString(body)
        except (OSError, DecodeError) as error:
            self.reply(400, str(error).encode())
            return None

    def metrics(self, body):
        request = self.decode(body, metrics_service_pb2.ExportMetricsServiceRequest)
        if request is None:
            return
        lines = []
        for resource_metrics in request.resource_metrics:
            resource = {kv.key: value(kv.value) for kv in resource_metrics.resource.attributes}
            for scope_metrics in resource_metrics.scope_metrics:
                for metric in scope_metrics.metrics:
                    kind = metric.WhichOneof("data")
                    data = getattr(metric, kind)
                    for point in data.data_points:
                        line = {
                            "resource": resource, "scope": scope_metrics.scope.name, "name": metric.name,
                            "unit": metric.unit, "kind": kind, "temporality": data.aggregation_temporality,
                            "start_time_unix_nano": point.start_time_unix_nano, "time_unix_nano": point.time_unix_nano,
                            "attributes": {kv.key: value(kv.value) for kv in point.attributes},
                            "gzip": self.headers.get("Content-Encoding") == "gzip",
                        }
                        if kind == "sum":
                            line.update(monotonic=data.is_monotonic, value=point.as_int)
                        elif kind == "histogram":
                            line.update(count=point.count, sum=point.sum, min=point.min, max=point.max,
                                        bucket_counts=list(point.bucket_counts), explicit_bounds=list(point.explicit_bounds))
                        lines.append(json.dumps(line))
        with lock, open(out_path + ".metrics", "a") as out:
            out.write("".join(line + "\n" for line in lines))
        self.reply(200, metrics_service_pb2.ExportMetricsServiceResponse().SerializeToString(), "application/x-protobuf")

    def log_message(self, *args):
        pass


# The test process may start us with signals blocked: take SIGTERM back, so terminate() ends us.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
