"""The optimization-profile text scan (store.profilescan) and the reading of its entries (checks.plugin._model_reach)."""

from __future__ import annotations

from trtlint.checks.plugin._model_reach import fixed_dims
from trtlint.store.profilescan import profile_entries
from trtlint.store.scancache import model_io

_CPP = b"""void build(IOptimizationProfile* profile, Dims const& in, char const* name)
{
    auto lo = Dims4{1, in.d[1], in.d[2], in.d[3]};
    profile->setDimensions(name, nvinfer1::OptProfileSelector::kMIN, lo);
    profile->setDimensions(name, OptProfileSelector::kOPT, Dims4(8, in.d[1], in.d[2], in.d[3]));
    profile->setDimensions(name, OptProfileSelector::kMAX, Dims{4, {16, in.d[1], in.d[2], in.d[3]}});
}
"""


def _fixed(data: bytes):
    return fixed_dims([("f.cpp", line, text) for _, line, text in profile_entries(data)])


def test_constructors_and_a_variable_declared_once_are_read():
    got = profile_entries(_CPP)
    assert got == [
        ("profile", 4, "name\tkMIN\t1\tin.d[1]\tin.d[2]\tin.d[3]"),
        ("profile", 5, "name\tkOPT\t8\tin.d[1]\tin.d[2]\tin.d[3]"),
        ("profile", 6, "name\tkMAX\t16\tin.d[1]\tin.d[2]\tin.d[3]"),
    ]
    assert _fixed(_CPP) == "the program's optimization profiles (f.cpp:4) vary only the first dimension of each input"
    assert ("profile", 4, "name\tkMIN\t1\tin.d[1]\tin.d[2]\tin.d[3]") in model_io(_CPP)


def test_a_dimension_that_varies_is_not_fixed():
    assert _fixed(_CPP.replace(b"Dims4(8, in.d[1], in.d[2]", b"Dims4(8, in.d[1], 2 * in.d[2]")) is None


def test_what_is_not_read_is_unknown_and_fixes_nothing():
    written = _CPP.replace(b"    profile->setDimensions(name, nvinfer1", b"    lo.d[2] = 7;\n    profile->setDimensions(name, nvinfer1")
    assert profile_entries(written)[0][2] == "name\t?"
    assert _fixed(written) is None
    selector = _CPP.replace(b"nvinfer1::OptProfileSelector::kMIN", b"sel")
    assert _fixed(selector) is None
    side = _CPP.replace(b"Dims4(8, in.d[1]", b"Dims4(8, i++")
    assert _fixed(side) is None
    shapes = _CPP + b"void more(IOptimizationProfile* p) { p->setShapeValues(\"s\", OptProfileSelector::kMIN, v, 2); }\n"
    assert _fixed(shapes) is None
    assert _fixed(b"int main() { return 0; }\n") is None  # no profile: nothing known
    # the variable declared is another function's: this one's parameter of the same name is not known
    other = b"void a() { auto lo = Dims4{1, 3, 8, 8}; use(lo); }\n" + _CPP.replace(b"    auto lo = Dims4{1, in.d[1], in.d[2], in.d[3]};\n", b"").replace(b"Dims const& in,", b"Dims lo, Dims const& in,")
    assert profile_entries(other)[0][2] == "name\t?"


def test_python_set_shape():
    py = b'profile.set_shape("x", (1, 3, 224, 224), (8, 3, 224, 224), [16, 3, 224, 224])\n'
    assert [t for _, _, t in profile_entries(py)] == ['"x"\tkMIN\t1\t3\t224\t224', '"x"\tkOPT\t8\t3\t224\t224',
                                                        '"x"\tkMAX\t16\t3\t224\t224']
    assert _fixed(py) is not None
    assert _fixed(b'profile.set_shape("x", lo, opt, hi)\n') is None
    assert _fixed(py + b"inp = torch_tensorrt.Input(min_shape=(1, 3), opt_shape=(2, 3), max_shape=(4, 3))\n") is None
    assert _fixed(py + b'profiles = [Profile().add("x", min=(1, 3), opt=(2, 3), max=(4, 3))]\n') is None


def test_each_way_of_setting_shapes_out_of_sight_is_unknown_and_a_large_constant_array_does_not_hide_a_profile():
    # every alternative of the "set out of sight" pattern gives an unknown entry: the literal gates in front of the
    # searches (profilescan.LITERALS, scancache.model_io's search of the code parts only) leave none of them out
    for text in (b"ctx->setShapeValues(0, v);", b"ctx.set_shape_input(0, v)", b"opt_shape = (1, 3)",
                 b"trtexec --minShapes=x:1x3", b"convert --trt-max-shapes x:1", b"p.add('x', min = (1, 3))"):
        assert [k for k, _line, body in model_io(text) if body.endswith("?")] == ["profile"], text
    # a generated source: a profile set after 40 KB of hex constants is still read, at its own line
    data = b"const unsigned char cubin[] = {\n" + b"0x7f, 0x45, 0x4c, 0x46,\n" * 2000 + b"};\n" + _CPP
    got = [(line, body) for kind, line, body in model_io(data) if kind == "profile"]
    assert got == [(2006, "name\tkMIN\t1\tin.d[1]\tin.d[2]\tin.d[3]"), (2007, "name\tkOPT\t8\tin.d[1]\tin.d[2]\tin.d[3]"),
                   (2008, "name\tkMAX\t16\tin.d[1]\tin.d[2]\tin.d[3]")]
