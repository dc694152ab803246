"""Networks in int8 with activations quantized one row (one token) at a time: the parser's, and
the sense encoder's blocks (``senses/onnx_encoder.py``).

ONNX Runtime's dynamic quantization gives each matrix product one activation scale for the whole
batch (``DynamicQuantizeLinear``), so a sentence's int8 tree depends on the sentences parsed beside
it. :func:`per_row` rewrites its graph so that every row of every activation matrix gets its own
scale: symmetric, ``max |x| / 127``, stored as uint8 around a fixed zero point of 128. A token's
result then depends on that token alone, and a sentence parses the same in any batch. The weights
keep the dynamic quantization's values and scales (int8, one scale per output channel). On a CPU
without VNNI, ONNX Runtime's uint8 × int8 kernel adds pairs of products in 16 bits and saturates
(a row of 255s times a column of 127s comes out 8,160 instead of 1,032,256); where
:func:`signed_weights_exact` finds that, the weights are stored as uint8 around 128
(:func:`unsigned`), whose kernel is exact on every CPU. Either way every CPU computes the same
integer products.

For each ``DynamicQuantizeLinear`` → ``MatMulInteger`` → ``Cast`` → ``Mul(scale)`` chain:

    x2 = Reshape(x, [-1, K])                     rows × inputs
    s  = max(|x2|, per row) / 127                one scale per row
    q  = QuantizeLinear(x2, s, 128, axis=0)      uint8
    y  = MatMulIntegerToFloat(q, W, 1, w_scale, 128, 0) * s[:, None], reshaped to x's rows

``MatMulIntegerToFloat`` (an ONNX Runtime operator) takes one scale for its first input, hence
the row scale applied after it. Measured on this project's CPU: docs/parser.md.
"""

from __future__ import annotations

import functools
import logging
from collections import defaultdict
from pathlib import Path

import numpy as np

ZERO_POINT = 128


def per_row(model, unsigned_weights: bool = False):
    """Rewrite ``model`` (an ``onnx.ModelProto`` from ``quantize_dynamic`` with symmetric int8
    weights) in place to per-row activation quantization, its weights stored as uint8 if
    ``unsigned_weights``; returns it. A graph of another shape raises ValueError, so that the
    caller keeps float32."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    producer = {out: n for n in graph.node for out in n.output}
    users = defaultdict(list)
    for node in graph.node:
        for name in node.input:
            users[name].append(node)
    added = []

    def const(name: str, value) -> str:
        added.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    inv127, tiny, one = (const("int8/inv127", np.float32(1 / 127)),
                         const("int8/tiny", np.float32(1e-12)), const("int8/one", np.float32(1)))
    zp, zero, c_zp = (const("int8/zp", np.uint8(ZERO_POINT)), const("int8/zero", np.float32(0)),
                      const("int8/zp_float", np.float32(ZERO_POINT)))
    last = const("int8/last", np.array([-1], np.int64))
    first = const("int8/first", np.array([0], np.int64))
    nodes, dropped, rows, done = [], set(), {}, set()

    def shape_of(name: str) -> tuple:
        if name not in weights:
            raise ValueError(f"{name} is not a constant weight")
        return tuple(weights[name].dims)

    for node in graph.node:
        if node.op_type == "DynamicQuantizeLinear":
            x, q, p = node.input[0], node.output[0], node.output[0] + "/row"
            inputs = {shape_of(u.input[1])[0] for u in users[q] if u.op_type == "MatMulInteger"}
            if len(inputs) != 1 or len(users[q]) != len([u for u in users[q]
                                                          if u.op_type == "MatMulInteger"]):
                raise ValueError(f"{x} is quantized for something other than matrix products")
            rows_of = const(p + "/2d", np.array([-1, inputs.pop()], np.int64))
            nodes += [
                helper.make_node("Reshape", [x, rows_of], [p + "/x"]),
                helper.make_node("ReduceMax", [p + "/x"], [p + "/max"], axes=[1], keepdims=0),
                helper.make_node("ReduceMin", [p + "/x"], [p + "/min"], axes=[1], keepdims=0),
                helper.make_node("Neg", [p + "/min"], [p + "/-min"]),
                helper.make_node("Max", [p + "/max", p + "/-min"], [p + "/abs"]),
                helper.make_node("Mul", [p + "/abs", inv127], [p + "/s0"]),
                helper.make_node("Max", [p + "/s0", tiny], [p + "/s"]),  # a row of zeros
                # QuantizeLinear wants a zero point per scale: 128 for each row.
                helper.make_node("Mul", [p + "/s", zero], [p + "/z0"]),
                helper.make_node("Add", [p + "/z0", c_zp], [p + "/z1"]),
                helper.make_node("Cast", [p + "/z1"], [p + "/zp"], to=TensorProto.UINT8),
                helper.make_node("QuantizeLinear", [p + "/x", p + "/s", p + "/zp"], [q], axis=0),
                helper.make_node("Unsqueeze", [p + "/s", last], [p + "/s_col"]),
                helper.make_node("Shape", [x], [p + "/shape"]),
                helper.make_node("Slice", [p + "/shape", first, last], [p + "/lead"]),
            ]
            rows[q] = (p, node.output[1])
        elif node.op_type == "MatMulInteger":
            a, w, _, w_zp = node.input
            after = users[node.output[0]]
            if (a not in rows or len(after) != 1 or after[0].op_type != "Cast"
                    or len(users[after[0].output[0]]) != 1):
                raise ValueError(f"{node.name}: not the dynamic quantization's pattern")
            if w_zp not in weights or (w_zp not in done
                                       and numpy_helper.to_array(weights[w_zp]).any()):
                raise ValueError(f"{node.name}: its weights are not symmetric")
            if unsigned_weights:
                unsigned(weights[w], weights[w_zp], done)
            cast = after[0]
            mul = users[cast.output[0]][0]
            scales = producer.get(mul.input[-1])  # activation scale × weight scales
            (p, batch_scale), out = rows[a], mul.output[0]
            w_scale = [name for name in getattr(scales, "input", ()) if name != batch_scale]
            if (mul.op_type != "Mul" or scales is None or scales.op_type != "Mul"
                    or len(w_scale) != 1):
                raise ValueError(f"{node.name}: its scales are not the dynamic quantization's")
            n_out = const(out + "/n", np.array([shape_of(w)[1]], np.int64))
            nodes += [
                helper.make_node("MatMulIntegerToFloat", [a, w, one, w_scale[0], zp, w_zp],
                                 [out + "/y"], domain="com.microsoft"),
                helper.make_node("Mul", [out + "/y", p + "/s_col"], [out + "/ys"]),
                helper.make_node("Concat", [p + "/lead", n_out], [out + "/shape"], axis=0),
                helper.make_node("Reshape", [out + "/ys", out + "/shape"], [out]),
            ]
            dropped |= {id(cast), id(mul), id(scales)}
        else:
            nodes.append(node)
    if not rows:
        raise ValueError("no dynamically quantized matrix product")
    del graph.node[:]
    graph.node.extend(n for n in nodes if id(n) not in dropped)
    graph.initializer.extend(added)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


@functools.lru_cache(maxsize=None)
def signed_weights_exact() -> bool:
    """Whether ONNX Runtime on this CPU multiplies uint8 activations by int8 weights exactly (with
    VNNI it does; without, pairs of products saturate in 16 bits): one product known to saturate,
    checked against its exact value. Run once a process; the int8 files are named by its answer
    (:func:`tagged`), so a cache shared by machines of both kinds holds each its own file."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    k = 64
    inits = [numpy_helper.from_array(np.full((k, 1), 127, np.int8), "w"),
             numpy_helper.from_array(np.float32(1), "one"),
             numpy_helper.from_array(np.ones(1, np.float32), "w_scale"),
             numpy_helper.from_array(np.uint8(ZERO_POINT), "zp"),
             numpy_helper.from_array(np.zeros(1, np.int8), "w_zp")]
    graph = helper.make_graph(
        [helper.make_node("MatMulIntegerToFloat", ["x", "w", "one", "w_scale", "zp", "w_zp"], ["y"],
                          domain="com.microsoft")], "probe",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    try:
        y = ort.InferenceSession(model.SerializeToString(), options,
                                 providers=["CPUExecutionProvider"]
                                 ).run(None, {"x": np.full((1, k), 255, np.uint8)})[0]
    except Exception:  # noqa: BLE001 - no such kernel: uint8 weights, or float32 if they fail too
        return False
    return float(y[0, 0]) == float((255 - ZERO_POINT) * 127 * k)


def tagged(version: int):
    """The quantization ``version`` as this CPU's int8 files are named and recorded by: itself
    (int8 weights), or "<version>-u8" (weights stored as uint8, where
    :func:`signed_weights_exact` is false)."""
    return version if signed_weights_exact() else f"{version}-u8"


def unsigned(weight, zero_point, done: set) -> None:
    """Store a symmetric int8 weight tensor (values -127..127, zero point 0) in place as uint8
    around 128: the same integer products, by ONNX Runtime's kernel that is exact on every CPU.
    ``done`` holds the names already stored so (a tensor may feed several products)."""
    from onnx import numpy_helper

    for tensor in (weight, zero_point):
        if tensor.name in done:
            continue
        values = numpy_helper.to_array(tensor)
        if values.dtype != np.int8:
            raise ValueError(f"{tensor.name}: not int8")
        tensor.CopyFrom(numpy_helper.from_array((values.astype(np.int16) + ZERO_POINT)
                                                .astype(np.uint8), tensor.name))
        done.add(tensor.name)


def quantize(src: Path, dst: Path) -> None:
    """``src``'s matrix-product weights in int8, one scale per output channel (ONNX Runtime's
    dynamic quantization), and its activations one scale per row (:func:`per_row`)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # its advice to pre-process the graph, on the root logger
    try:
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
    finally:
        logging.disable(logging.NOTSET)
    onnx.save(per_row(onnx.load(str(dst)), unsigned_weights=not signed_weights_exact()), str(dst))
