"""Server reflection as ``grpc.reflection.v1`` as well as ``v1alpha``.

grpcurl, Postman and grpcui ask ``grpc.reflection.v1.ServerReflection`` first; grpcio-reflection (1.85)
serves only ``v1alpha``. The two protocols are the same messages with the same field numbers under
another package, so one ``ReflectionServicer`` answers both: the v1 service's messages are read and
written with the v1alpha classes (the same bytes), and a v1 file descriptor (the v1alpha one under
the v1 package) is added to the default pool so that reflection can describe the v1 service itself.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE = f"{V1_PACKAGE}.ServerReflection"
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _add_v1_descriptor(v1alpha_pb2: Any) -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(_V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    v1alpha_pb2.DESCRIPTOR.CopyToProto(proto)
    old = f".{proto.package}."
    proto.name, proto.package = _V1_FILE, V1_PACKAGE
    for message in proto.message_type:
        for f in message.field:
            if f.HasField("type_name"):
                f.type_name = f.type_name.replace(old, f".{V1_PACKAGE}.")
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(old, f".{V1_PACKAGE}.")
            method.output_type = method.output_type.replace(old, f".{V1_PACKAGE}.")
    pool.Add(proto)


def enable(service_names: tuple[str, ...], server: grpc.Server) -> None:
    """Serve reflection for ``service_names`` (plus both reflection services) as v1 and v1alpha."""
    from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

    _add_v1_descriptor(reflection_pb2)
    servicer = reflection.ReflectionServicer((*service_names, reflection.SERVICE_NAME, V1_SERVICE))
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE, {"ServerReflectionInfo": handler}),)
    )
