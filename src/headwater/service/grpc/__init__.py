"""gRPC: the two LineageService layers (``pipeline.proto``, ``governance.proto``) over the store.

The Python stubs beside the protos are generated and committed (``python -m
headwater.service.grpc.regenerate``); ``start_grpc`` serves both layers (``docs/api.md``, gRPC).
"""

from headwater.service.grpc.server import SERVICE_NAMES, TlsFiles, grpc_server, start_grpc

__all__ = ["SERVICE_NAMES", "TlsFiles", "grpc_server", "start_grpc"]
