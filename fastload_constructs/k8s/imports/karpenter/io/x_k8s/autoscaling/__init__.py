from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class CapacityBuffer(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8sautoscaling.CapacityBuffer",
):
    '''CapacityBuffer is the configuration that an autoscaler can use to provision buffer capacity within a cluster.

    This buffer is represented by placeholder pods that trigger the Cluster Autoscaler to scale up nodes in advance,
    ensuring that there is always spare capacity available to handle sudden workload spikes or to speed up scaling events.

    :schema: CapacityBuffer
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["CapacityBufferSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "CapacityBuffer" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: spec defines the desired characteristics of the buffer.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4f6f42daaa1dd370f1801b3e2be6892d8a8a16f9b490f3f6b5ac7a3144293cec)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = CapacityBufferProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["CapacityBufferSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "CapacityBuffer".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: spec defines the desired characteristics of the buffer.
        :param metadata: 
        '''
        props = CapacityBufferProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "CapacityBuffer".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8sautoscaling.CapacityBufferProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class CapacityBufferProps:
    def __init__(
        self,
        *,
        spec: typing.Union["CapacityBufferSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''CapacityBuffer is the configuration that an autoscaler can use to provision buffer capacity within a cluster.

        This buffer is represented by placeholder pods that trigger the Cluster Autoscaler to scale up nodes in advance,
        ensuring that there is always spare capacity available to handle sudden workload spikes or to speed up scaling events.

        :param spec: spec defines the desired characteristics of the buffer.
        :param metadata: 

        :schema: CapacityBuffer
        '''
        if isinstance(spec, dict):
            spec = CapacityBufferSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2869f8a36c119d5b91a2874b430e7b157ee5b8f9695aabee6b94d33651c94714)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "CapacityBufferSpec":
        '''spec defines the desired characteristics of the buffer.

        :schema: CapacityBuffer#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("CapacityBufferSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: CapacityBuffer#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CapacityBufferProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8sautoscaling.CapacityBufferSpec",
    jsii_struct_bases=[],
    name_mapping={
        "limits": "limits",
        "percentage": "percentage",
        "pod_template_ref": "podTemplateRef",
        "provisioning_strategy": "provisioningStrategy",
        "replicas": "replicas",
        "scalable_ref": "scalableRef",
    },
)
class CapacityBufferSpec:
    def __init__(
        self,
        *,
        limits: typing.Optional[typing.Mapping[builtins.str, "CapacityBufferSpecLimits"]] = None,
        percentage: typing.Optional[jsii.Number] = None,
        pod_template_ref: typing.Optional[typing.Union["CapacityBufferSpecPodTemplateRef", typing.Dict[builtins.str, typing.Any]]] = None,
        provisioning_strategy: typing.Optional[builtins.str] = None,
        replicas: typing.Optional[jsii.Number] = None,
        scalable_ref: typing.Optional[typing.Union["CapacityBufferSpecScalableRef", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''spec defines the desired characteristics of the buffer.

        :param limits: limits specifies resource constraints that limit the number of chunks created for this buffer based on total resource requests (e.g., CPU, memory). If there are no other limitations for the number of chunks (i.e., ``replicas`` or ``percentage`` are not set), this will be used to create as many chunks as fit into these limits.
        :param percentage: percentage defines the desired buffer capacity as a percentage of the ``scalableRef``'s current replicas. This is only applicable if ``scalableRef`` is set. The absolute number of replicas is calculated from the percentage by rounding up to a minimum of 1. For example, if ``scalableRef`` has 10 replicas and ``percentage`` is 20, 2 buffer chunks will be created.
        :param pod_template_ref: podTemplateRef is a reference to a PodTemplate resource in the same namespace that declares the shape of a single chunk of the buffer. The pods created from this template will be used as placeholder pods for the buffer capacity. Exactly one of ``podTemplateRef``, ``scalableRef`` should be specified.
        :param provisioning_strategy: provisioningStrategy defines how the buffer is utilized. "buffer.x-k8s.io/active-capacity" is the default strategy, where the buffer actively scales up the cluster by creating placeholder pods.
        :param replicas: replicas defines the desired number of buffer chunks to provision. If neither ``replicas`` nor ``percentage`` is set, as many chunks as fit within defined resource limits (if any) will be created. If both are set, the minimum of the two will be used.
        :param scalable_ref: scalableRef is a reference to an object of a kind that has a scale subresource and specifies its label selector field. This allows the CapacityBuffer to manage the buffer by scaling an existing scalable resource. Exactly one of ``podTemplateRef``, ``scalableRef`` should be specified.

        :schema: CapacityBufferSpec
        '''
        if isinstance(pod_template_ref, dict):
            pod_template_ref = CapacityBufferSpecPodTemplateRef(**pod_template_ref)
        if isinstance(scalable_ref, dict):
            scalable_ref = CapacityBufferSpecScalableRef(**scalable_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6ed009d002f65f97aa1196d994a7fb29a30f95428b364b5c2d68fa05f4258c24)
            check_type(argname="argument limits", value=limits, expected_type=type_hints["limits"])
            check_type(argname="argument percentage", value=percentage, expected_type=type_hints["percentage"])
            check_type(argname="argument pod_template_ref", value=pod_template_ref, expected_type=type_hints["pod_template_ref"])
            check_type(argname="argument provisioning_strategy", value=provisioning_strategy, expected_type=type_hints["provisioning_strategy"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument scalable_ref", value=scalable_ref, expected_type=type_hints["scalable_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if limits is not None:
            self._values["limits"] = limits
        if percentage is not None:
            self._values["percentage"] = percentage
        if pod_template_ref is not None:
            self._values["pod_template_ref"] = pod_template_ref
        if provisioning_strategy is not None:
            self._values["provisioning_strategy"] = provisioning_strategy
        if replicas is not None:
            self._values["replicas"] = replicas
        if scalable_ref is not None:
            self._values["scalable_ref"] = scalable_ref

    @builtins.property
    def limits(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "CapacityBufferSpecLimits"]]:
        '''limits specifies resource constraints that limit the number of chunks created for this buffer based on total resource requests (e.g., CPU, memory). If there are no other limitations for the number of chunks (i.e., ``replicas`` or ``percentage`` are not set), this will be used to create as many chunks as fit into these limits.

        :schema: CapacityBufferSpec#limits
        '''
        result = self._values.get("limits")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "CapacityBufferSpecLimits"]], result)

    @builtins.property
    def percentage(self) -> typing.Optional[jsii.Number]:
        '''percentage defines the desired buffer capacity as a percentage of the ``scalableRef``'s current replicas.

        This is only applicable if ``scalableRef`` is set.
        The absolute number of replicas is calculated from the percentage by rounding up to a minimum of 1.
        For example, if ``scalableRef`` has 10 replicas and ``percentage`` is 20, 2 buffer chunks will be created.

        :schema: CapacityBufferSpec#percentage
        '''
        result = self._values.get("percentage")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def pod_template_ref(self) -> typing.Optional["CapacityBufferSpecPodTemplateRef"]:
        '''podTemplateRef is a reference to a PodTemplate resource in the same namespace that declares the shape of a single chunk of the buffer.

        The pods created
        from this template will be used as placeholder pods for the buffer capacity.
        Exactly one of ``podTemplateRef``, ``scalableRef`` should be specified.

        :schema: CapacityBufferSpec#podTemplateRef
        '''
        result = self._values.get("pod_template_ref")
        return typing.cast(typing.Optional["CapacityBufferSpecPodTemplateRef"], result)

    @builtins.property
    def provisioning_strategy(self) -> typing.Optional[builtins.str]:
        '''provisioningStrategy defines how the buffer is utilized.

        "buffer.x-k8s.io/active-capacity" is the default strategy, where the buffer actively scales up the cluster by creating placeholder pods.

        :schema: CapacityBufferSpec#provisioningStrategy
        '''
        result = self._values.get("provisioning_strategy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replicas(self) -> typing.Optional[jsii.Number]:
        '''replicas defines the desired number of buffer chunks to provision.

        If neither ``replicas`` nor ``percentage`` is set, as many chunks as fit within
        defined resource limits (if any) will be created. If both are set, the minimum
        of the two will be used.

        :schema: CapacityBufferSpec#replicas
        '''
        result = self._values.get("replicas")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def scalable_ref(self) -> typing.Optional["CapacityBufferSpecScalableRef"]:
        '''scalableRef is a reference to an object of a kind that has a scale subresource and specifies its label selector field.

        This allows the CapacityBuffer to
        manage the buffer by scaling an existing scalable resource.
        Exactly one of ``podTemplateRef``, ``scalableRef`` should be specified.

        :schema: CapacityBufferSpec#scalableRef
        '''
        result = self._values.get("scalable_ref")
        return typing.cast(typing.Optional["CapacityBufferSpecScalableRef"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CapacityBufferSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CapacityBufferSpecLimits(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8sautoscaling.CapacityBufferSpecLimits",
):
    '''
    :schema: CapacityBufferSpecLimits
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "CapacityBufferSpecLimits":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__29c403bd115d082511971f88ba45e22d103ad30c121d0ef802717af6c9c17de9)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CapacityBufferSpecLimits", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "CapacityBufferSpecLimits":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f8976b6ff3aeb979c74907b19238a05dec7c7659d83fe830887922f12da20fee)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CapacityBufferSpecLimits", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="iox-k8sautoscaling.CapacityBufferSpecPodTemplateRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name"},
)
class CapacityBufferSpecPodTemplateRef:
    def __init__(self, *, name: builtins.str) -> None:
        '''podTemplateRef is a reference to a PodTemplate resource in the same namespace that declares the shape of a single chunk of the buffer.

        The pods created
        from this template will be used as placeholder pods for the buffer capacity.
        Exactly one of ``podTemplateRef``, ``scalableRef`` should be specified.

        :param name: name of the referent.

        :schema: CapacityBufferSpecPodTemplateRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__23f495458f34aa37aabfcbd4592625badf6222d5eca8c07ee445cdfbe8eb8fa0)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of the referent.

        :schema: CapacityBufferSpecPodTemplateRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CapacityBufferSpecPodTemplateRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8sautoscaling.CapacityBufferSpecScalableRef",
    jsii_struct_bases=[],
    name_mapping={"kind": "kind", "name": "name", "api_group": "apiGroup"},
)
class CapacityBufferSpecScalableRef:
    def __init__(
        self,
        *,
        kind: builtins.str,
        name: builtins.str,
        api_group: typing.Optional[builtins.str] = None,
    ) -> None:
        '''scalableRef is a reference to an object of a kind that has a scale subresource and specifies its label selector field.

        This allows the CapacityBuffer to
        manage the buffer by scaling an existing scalable resource.
        Exactly one of ``podTemplateRef``, ``scalableRef`` should be specified.

        :param kind: kind is the kind of the referent.
        :param name: name is the name of the referent.
        :param api_group: apiGroup is the API group of the referent. Empty string for the core API group.

        :schema: CapacityBufferSpecScalableRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c91e24d7515a5c62b8ff411f4f69dc88d04297880c2c26afc235262b9a7111d5)
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument api_group", value=api_group, expected_type=type_hints["api_group"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "kind": kind,
            "name": name,
        }
        if api_group is not None:
            self._values["api_group"] = api_group

    @builtins.property
    def kind(self) -> builtins.str:
        '''kind is the kind of the referent.

        :schema: CapacityBufferSpecScalableRef#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''name is the name of the referent.

        :schema: CapacityBufferSpecScalableRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def api_group(self) -> typing.Optional[builtins.str]:
        '''apiGroup is the API group of the referent.

        Empty string for the core API group.

        :schema: CapacityBufferSpecScalableRef#apiGroup
        '''
        result = self._values.get("api_group")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CapacityBufferSpecScalableRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "CapacityBuffer",
    "CapacityBufferProps",
    "CapacityBufferSpec",
    "CapacityBufferSpecLimits",
    "CapacityBufferSpecPodTemplateRef",
    "CapacityBufferSpecScalableRef",
]

publication.publish()

def _typecheckingstub__4f6f42daaa1dd370f1801b3e2be6892d8a8a16f9b490f3f6b5ac7a3144293cec(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[CapacityBufferSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2869f8a36c119d5b91a2874b430e7b157ee5b8f9695aabee6b94d33651c94714(
    *,
    spec: typing.Union[CapacityBufferSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6ed009d002f65f97aa1196d994a7fb29a30f95428b364b5c2d68fa05f4258c24(
    *,
    limits: typing.Optional[typing.Mapping[builtins.str, CapacityBufferSpecLimits]] = None,
    percentage: typing.Optional[jsii.Number] = None,
    pod_template_ref: typing.Optional[typing.Union[CapacityBufferSpecPodTemplateRef, typing.Dict[builtins.str, typing.Any]]] = None,
    provisioning_strategy: typing.Optional[builtins.str] = None,
    replicas: typing.Optional[jsii.Number] = None,
    scalable_ref: typing.Optional[typing.Union[CapacityBufferSpecScalableRef, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__29c403bd115d082511971f88ba45e22d103ad30c121d0ef802717af6c9c17de9(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f8976b6ff3aeb979c74907b19238a05dec7c7659d83fe830887922f12da20fee(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__23f495458f34aa37aabfcbd4592625badf6222d5eca8c07ee445cdfbe8eb8fa0(
    *,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c91e24d7515a5c62b8ff411f4f69dc88d04297880c2c26afc235262b9a7111d5(
    *,
    kind: builtins.str,
    name: builtins.str,
    api_group: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass
