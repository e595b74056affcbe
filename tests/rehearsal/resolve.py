"""Resolve every intrinsic function in a synthesised template the way CloudFormation does at deploy time.

Supported: `Ref` (resources, parameters, pseudo parameters), `Fn::GetAtt`, `Fn::Join`,
`Fn::Sub` (both forms, `${!Literal}` escapes), `Fn::Select`, `Fn::Split`, `Fn::Base64`,
`Fn::GetAZs`, `Fn::If` with the template's `Conditions` (`Fn::Equals`, `Fn::Not`,
`Fn::And`, `Fn::Or`, `Condition`), `Fn::ImportValue` (from `imports`), and
`AWS::NoValue` (the key or list item disappears). Sources: CloudFormation Template
Reference, "Intrinsic function reference" and "Pseudo parameters reference"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference.html,
https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/pseudo-parameter-reference.html).

Anything else (an unknown function, a type or form missing from `return_values.TABLE`,
a parameter without a value) raises with the location named: nothing is left half-resolved.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any

from tests.rehearsal.environment import Environment, generated_name, hex_id
from tests.rehearsal.return_values import UnknownReturnValue, entry

NO_VALUE = object()
# CDK's bootstrap stack publishes its version in SSM (/cdk-bootstrap/<qualifier>/version); recent ones are 2x-3x.
PARAMETER_VALUES = {"BootstrapVersion": "30"}


class ResourceContext:
    """What a return-value entry may read: the resource's own resolved properties and its environment."""

    def __init__(self, resolver: Resolver, logical_id: str) -> None:
        self.resolver = resolver
        self.logical_id: str = logical_id
        self.env: Environment = resolver.env
        self.seed: str = f"{resolver.env.stack_name}/{logical_id}"

    def prop(self, name: str) -> Any:
        raw = self.resolver.template["Resources"][self.logical_id].get("Properties", {}).get(name)
        value = self.resolver.resolve(raw, f"{self.logical_id}.Properties.{name}")
        return None if value is NO_VALUE else value

    def generated_name(self, max_length: int, *, lowercase: bool = False) -> str:
        return generated_name(self.env, self.logical_id, max_length, lowercase=lowercase)


class Resolver:
    def __init__(
        self,
        template: Mapping[str, Any],
        env: Environment,
        *,
        parameters: Mapping[str, str] | None = None,
        imports: Mapping[str, str] | None = None,
    ) -> None:
        self.template, self.env = template, env
        self.parameters = {**PARAMETER_VALUES, **(parameters or {})}
        self.imports = dict(imports or {})
        self.pseudo = {
            "AWS::AccountId": env.account,
            "AWS::Region": env.region,
            "AWS::Partition": env.partition,
            "AWS::URLSuffix": env.url_suffix,
            "AWS::StackName": env.stack_name,
            "AWS::StackId": env.stack_id,
            "AWS::NotificationARNs": [],
        }

    # --- public -----------------------------------------------------------------------------------------
    def resources(self) -> dict[str, dict[str, Any]]:
        """Logical ID -> resource with every intrinsic resolved; resources whose Condition is false are left out."""
        out = {}
        for logical_id, resource in self.template["Resources"].items():
            entry(resource["Type"])  # a type missing from the table fails here, referenced or not
            if "Condition" in resource and not self.condition(resource["Condition"]):
                continue
            props = self.resolve(resource.get("Properties", {}), f"{logical_id}.Properties")
            out[logical_id] = {**resource, "Properties": props}
        return out

    def outputs(self) -> dict[str, Any]:
        return {k: self.resolve(v.get("Value"), f"Outputs.{k}") for k, v in self.template.get("Outputs", {}).items()}

    def ref(self, name: str, where: str = "") -> Any:
        if name in self.pseudo:
            return self.pseudo[name]
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in self.template.get("Parameters", {}):
            return self._parameter(name, where)
        resource = self._resource(name, where)
        form = entry(resource["Type"]).ref
        if form is None:
            raise UnknownReturnValue(f"{where}: Ref of {resource['Type']} ({name}) is not modelled in return_values")
        return form(ResourceContext(self, name))

    def get_att(self, logical_id: str, attribute: str, where: str = "") -> Any:
        resource = self._resource(logical_id, where)
        forms = entry(resource["Type"]).attributes
        if attribute not in forms:
            raise UnknownReturnValue(
                f"{where}: Fn::GetAtt {resource['Type']}.{attribute} ({logical_id}) is not modelled in return_values"
            )
        return forms[attribute](ResourceContext(self, logical_id))

    def condition(self, name: str) -> bool:
        return bool(self._condition_value(self.template["Conditions"][name], f"Conditions.{name}"))

    def resolve(self, value: Any, where: str = "") -> Any:
        if isinstance(value, list):
            items = [self.resolve(v, f"{where}[{i}]") for i, v in enumerate(value)]
            return [v for v in items if v is not NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Ref":
                return self.ref(arg, where)
            if key.startswith("Fn::"):
                return self._function(key, arg, where)
        resolved = {k: self.resolve(v, f"{where}.{k}") for k, v in value.items()}
        return {k: v for k, v in resolved.items() if v is not NO_VALUE}

    # --- internals --------------------------------------------------------------------------------------
    def _resource(self, logical_id: str, where: str) -> Mapping[str, Any]:
        if logical_id not in self.template["Resources"]:
            raise KeyError(f"{where}: no resource or parameter named {logical_id}")
        return self.template["Resources"][logical_id]

    def _parameter(self, name: str, where: str) -> Any:
        if name in self.parameters:
            return self.parameters[name]
        declared = self.template["Parameters"][name]
        if "Default" in declared and not declared.get("Type", "").startswith("AWS::SSM::Parameter::Value"):
            return declared["Default"]
        if declared.get("Type") == "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>":
            # A public AMI parameter (/aws/service/...): CloudFormation passes its value, an image id.
            return hex_id("ami", str(declared.get("Default", name)))
        raise KeyError(f"{where}: parameter {name} has no value for the rehearsal (pass parameters=)")

    def _function(self, name: str, arg: Any, where: str) -> Any:
        here = f"{where}.{name}"
        if name == "Fn::GetAtt":
            logical_id, attribute = arg if isinstance(arg, list) else arg.split(".", 1)
            return self.get_att(logical_id, self.resolve(attribute, here), here)
        if name == "Fn::Join":
            separator, parts = arg
            return separator.join(_text(p, here) for p in self.resolve(parts, here))
        if name == "Fn::Sub":
            return self._sub(arg, here)
        if name == "Fn::Select":
            index, items = self.resolve(arg, here)
            return items[int(index)]
        if name == "Fn::Split":
            separator, text = self.resolve(arg, here)
            return text.split(separator)
        if name == "Fn::Base64":
            return base64.b64encode(_text(self.resolve(arg, here), here).encode()).decode()
        if name == "Fn::GetAZs":
            region = self.resolve(arg, here) or self.env.region
            assert region == self.env.region, f"{here}: Fn::GetAZs of another region {region}"
            return list(self.env.availability_zones)
        if name == "Fn::If":
            condition, when_true, when_false = arg
            return self.resolve(when_true if self.condition(condition) else when_false, here)
        if name == "Fn::ImportValue":
            export = self.resolve(arg, here)
            if export not in self.imports:
                raise KeyError(f"{here}: no export named {export!r} (pass imports=)")
            return self.imports[export]
        if name in ("Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or"):
            return self._condition_value({name: arg}, here)
        raise UnknownReturnValue(f"{here}: intrinsic function {name} is not supported by the rehearsal")

    def _sub(self, arg: Any, where: str) -> str:
        text, variables = (arg, {}) if isinstance(arg, str) else arg
        values = {k: self.resolve(v, f"{where}.{k}") for k, v in variables.items()}

        def replace(match: re.Match[str]) -> str:
            token = match.group(1)
            if token.startswith("!"):
                return "${" + token[1:] + "}"
            if token in values:
                return _text(values[token], where)
            logical_id, _, attribute = token.partition(".")
            if attribute and logical_id in self.template["Resources"]:
                return _text(self.get_att(logical_id, attribute, where), where)
            return _text(self.ref(token, where), where)

        return re.sub(r"\$\{([^}]+)\}", replace, text)

    def _condition_value(self, value: Any, where: str) -> Any:
        if isinstance(value, dict) and len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Condition":
                return self.condition(arg)
            if key == "Fn::Equals":
                left, right = (self._condition_value(a, where) for a in arg)
                return left == right
            if key == "Fn::Not":
                return not self._condition_value(arg[0], where)
            if key == "Fn::And":
                return all(self._condition_value(a, where) for a in arg)
            if key == "Fn::Or":
                return any(self._condition_value(a, where) for a in arg)
        return self.resolve(value, where)


def _text(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"{where}: {json.dumps(value)[:200]} is not a string")
