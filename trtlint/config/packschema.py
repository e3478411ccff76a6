"""The JSON schema a rule pack is validated against (:func:`trtlint.config.packs.load_pack_file`).

Its own module: only validating a user's pack (or ``trtlint rule``/the tests) needs it, not a run's start."""

from trtlint.config.onnx_importers import ONNX_IMPORTERS_SCHEMA, ONNX_RESTRICTIONS_SCHEMA

# one of TensorRT's own creators in rules/tensorrt_plugin_fields.yaml, with its fields
_TRT_FIELD = {"type": "object", "required": ["name"], "additionalProperties": False, "properties": {
    "name": {"type": "string"}, "type": {"type": "string"}, "required": {"type": "boolean"},
    "default": {"type": "string"}, "length": {"type": "integer", "minimum": 0}}}
_TRT_CREATOR = {"type": "object", "required": ["name", "version", "fields"], "additionalProperties": False, "properties": {
    "name": {"type": "string", "minLength": 1}, "version": {"type": "string"}, "namespace": {"type": "string"},
    "fields": {"type": "array", "items": _TRT_FIELD}}}
_ENTRY = {
    "type": "object",
    "required": ["name", "what"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "what": {"type": "string"},
        "severity": {"enum": ["error", "warning", "info"]},
    },
    "additionalProperties": False,
}

_BEHAVIOUR_ENTRY = {
    "type": "object",
    "required": ["name", "behaviour", "what"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "behaviour": {"enum": ["throw", "exit", "status"]},
        "what": {"type": "string"},
        "severity": {"enum": ["error", "warning", "info"]},
        "index_check": {"type": "boolean"},
    },
    "additionalProperties": False,
}
_TEMPERATURES = ["hot", "warm", "cold"]
_FAMILIES = ["v3", "v2dynext", "v2iox", "v2ext", "v2"]
_NAMES = {"type": "array", "items": {"type": "string", "minLength": 1}}
_TRT_VERSION = {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)?(\.[0-9]+)?$"}
# {release: advice}: the replacement to advise for a target older than that release (config.packs.advice_at)
_BEFORE = {"type": "object", "propertyNames": {"pattern": r"^[0-9]+(\.[0-9]+)?$"}, "additionalProperties": {"type": "string"}}
_TRT_METHOD = {
    "type": "object",
    "required": ["name", "pure", "noexcept", "temperature"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "pure": {"type": "boolean"},
        "noexcept": {"type": "boolean"},
        "temperature": {"enum": ["hot", "warm", "cold"]},
        "returns": {"enum": ["status"]},
        "deprecated": _TRT_VERSION,
        "removed": _TRT_VERSION,
        "replacement": {"type": "string"},
        # the types of the pointer parameters TensorRT never passes null (TRT204/TRT205: a throw on a null one)
        "nonnull": {"type": "array", "items": {"type": "string", "minLength": 1}},
    },
    "additionalProperties": False,
}
_TRT_SCHEMA = {
    "type": "object",
    "properties": {
        "default_version": _TRT_VERSION,
        "interfaces": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["kind", "methods"],
                "properties": {
                    "kind": {"enum": ["plugin", "capability", "creator"]},
                    "capability": {"enum": ["kCORE", "kBUILD", "kRUNTIME"]},
                    "header": {"type": "string"},
                    "extends": {"type": "string"},
                    "since": _TRT_VERSION,
                    "deprecated": _TRT_VERSION,
                    "removed": _TRT_VERSION,
                    "replacement": {"type": "string"},
                    "replacement_before": _BEFORE,
                    "methods": {"type": "array", "items": _TRT_METHOD},
                },
                "additionalProperties": False,
            },
        },
        "apis": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "deprecated": _TRT_VERSION,
                    "removed": _TRT_VERSION,
                    "replacement": {"type": "string"},
                    "replacement_before": _BEFORE,
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}

_STR_LIST = {"type": "array", "items": {"type": "string"}}
PACK_SCHEMA = {
    "type": "object",
    "required": ["version"],
    "properties": {
        "tensorrt_python_api": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "match"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "match": {"enum": ["attr", "qualified"]},
                    "deprecated": {"type": "string", "pattern": r"^\d+(\.\d+)*$"},
                    "removed": {"type": "string", "pattern": r"^\d+(\.\d+)*$"},
                    "use": {"type": "string"},
                    "use_before": _BEFORE,
                },
                "additionalProperties": False,
            },
        },
        "version": {"const": 1},
        "allocating": {"type": "array", "items": _ENTRY},
        "host_allocating": {"type": "array", "items": _ENTRY},
        "tensorrt": _TRT_SCHEMA,
        "synchronizing": {"type": "array", "items": _ENTRY},
        # trtlint/checks: TRT204, TRT205, TRT301-TRT305 (rules/cpp_behaviour.yaml)
        "macros": {"type": "array", "items": _BEHAVIOUR_ENTRY},
        "functions": {"type": "array", "items": _BEHAVIOUR_ENTRY},
        "temperatures": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["method", "temperature"],
                "properties": {
                    "method": {"type": "string", "minLength": 1},
                    "temperature": {"enum": _TEMPERATURES},
                    "families": {"type": "array", "items": {"enum": _FAMILIES}},
                },
                "additionalProperties": False,
            },
        },
        "temperature_severity": {
            "type": "object",
            "properties": {t: {"enum": ["error", "warning", "info"]} for t in _TEMPERATURES},
            "additionalProperties": False,
        },
        "status_apis": {"type": "array", "items": _ENTRY},
        "status_except": {"type": "array", "items": _ENTRY},
        "stream_exempt": {"type": "array", "items": _ENTRY},
        "size_queries": {"type": "array", "items": _ENTRY},
        "status_queries": {"type": "array", "items": _ENTRY},
        "status_teardown": {"type": "array", "items": _ENTRY},
        "teardown_methods": _NAMES,
        "stream_handles": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["library", "uses", "bind"],
                "properties": {"library": {"type": "string"}, "uses": _NAMES, "bind": _NAMES, "except": _NAMES},
                "additionalProperties": False,
            },
        },
        # TensorRT's own plugin creators with their declared fields, per release (rules/tensorrt_plugin_fields.yaml,
        # generated by bench/tensorrt_plugin_fields.py)
        "tensorrt_plugin_fields": {
            "type": "object",
            "required": ["releases"],
            "properties": {
                "library": {"type": "string"},
                "releases": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["creators"],
                        "properties": {
                            "tag": {"type": "string"},
                            "commit": {"type": "string"},
                            "creators": {"type": "array", "items": _TRT_CREATOR},
                        },
                        "additionalProperties": False,
                    },
                },
            },
            "additionalProperties": False,
        },
        "external_creators": {
            "type": "object",
            "required": ["library", "creators"],
            "properties": {
                "library": {"type": "string"},
                "namespace": {"type": "string"},
                "creators": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
                # creators older releases of the library registered and 11.x no longer does: known names
                "retired": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
            "additionalProperties": False,
        },
        "onnx_standard_ops": {
            "type": "object",
            "required": ["domains"],
            "properties": {
                "onnx_version": {"type": "string"},
                "domains": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
            },
            "additionalProperties": False,
        },
        "onnx_importers": ONNX_IMPORTERS_SCHEMA,
        "onnx_restrictions": ONNX_RESTRICTIONS_SCHEMA,
        "profiles": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "detect": {
                        "type": "object",
                        "properties": {"all": {"type": "array", "items": {"type": "string"}}},
                        "additionalProperties": False,
                    },
                    "plugin_dirs": {"type": "array", "items": {"type": "string"}},
                    "include_dirs": {"type": "array", "items": {"type": "string"}},
                    "defines": {"type": "array", "items": {"type": "string"}},
                    "feature_macros": {"type": "array", "items": {"type": "string"}},
                    "onnx_plugin_domains": {"type": "array", "items": {"type": "string"}},
                    "builtin_domains": {"type": "array", "items": {"type": "string"}},
                    "model_files": {"type": "array", "items": {"type": "string"}},
                    "exclude": {"type": "array", "items": {"type": "string"}},
                    "test_lists": {
                        "type": "object",
                        "properties": {
                            "files": {"type": "array", "items": {"type": "string"}},
                            "selector": {"enum": ["function-name", "nodeid"]},
                            "test_files": {"type": "array", "items": {"type": "string"}},
                        },
                        "required": ["files"],
                        "additionalProperties": False,
                    },
                    "direct_route": {
                        "type": "object",
                        "properties": {
                            "version": {"type": "string"},
                            "namespace": {"type": "string"},
                            "encodable": {"type": "array", "items": {"type": "string"}},
                            "call_names": {"type": "array", "items": {"type": "string"}},
                            "reserved_kwargs": {"type": "array", "items": {"type": "string"}},
                        },
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
