"""A one-node ONNX model (y = Identity(x), float[1]), written as protobuf
bytes by hand: the venvs have onnxruntime but not the onnx package.
ModelProto: ir_version 8, graph (node, name, input, output), opset 13.

python3 identity_onnx.py FILE
"""
import sys


def varint(n):
    out = b''
    while True:
        b, n = n & 0x7f, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])


def field_int(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b


def field_str(num, s):
    return field_bytes(num, s.encode())


shape = field_bytes(1, field_int(1, 1))                    # TensorShapeProto: dim { dim_value 1 }
tensor = field_int(1, 1) + field_bytes(2, shape)           # elem_type FLOAT, shape
value_type = field_bytes(1, tensor)                        # TypeProto: tensor_type
x = field_str(1, 'x') + field_bytes(2, value_type)         # ValueInfoProto
y = field_str(1, 'y') + field_bytes(2, value_type)
node = field_str(1, 'x') + field_str(2, 'y') + field_str(4, 'Identity')
graph = field_bytes(1, node) + field_str(2, 'g') + field_bytes(11, x) + field_bytes(12, y)
opset = field_str(1, '') + field_int(2, 13)
model = field_int(1, 8) + field_bytes(7, graph) + field_bytes(8, opset)
with open(sys.argv[1], 'wb') as f:
    f.write(model)
