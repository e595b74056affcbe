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


class ScaledObject(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="shkeda.ScaledObject",
):
    '''ScaledObject is a specification for a ScaledObject resource.

    :schema: ScaledObject
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["ScaledObjectSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ScaledObject" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: ScaledObjectSpec is the spec for a ScaledObject resource.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__10e7bcb8841e08bf7615ef3354c9d1878943b1cebb7b799100ac90f48c9deb7d)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ScaledObjectProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["ScaledObjectSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ScaledObject".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: ScaledObjectSpec is the spec for a ScaledObject resource.
        :param metadata: 
        '''
        props = ScaledObjectProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ScaledObject".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class ScaledObjectProps:
    def __init__(
        self,
        *,
        spec: typing.Union["ScaledObjectSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ScaledObject is a specification for a ScaledObject resource.

        :param spec: ScaledObjectSpec is the spec for a ScaledObject resource.
        :param metadata: 

        :schema: ScaledObject
        '''
        if isinstance(spec, dict):
            spec = ScaledObjectSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c07044806baefbc0c3eabce9598eccc57f043effb47ccc86ffd2f56305a3f4d1)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "ScaledObjectSpec":
        '''ScaledObjectSpec is the spec for a ScaledObject resource.

        :schema: ScaledObject#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("ScaledObjectSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ScaledObject#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpec",
    jsii_struct_bases=[],
    name_mapping={
        "scale_target_ref": "scaleTargetRef",
        "triggers": "triggers",
        "advanced": "advanced",
        "cooldown_period": "cooldownPeriod",
        "fallback": "fallback",
        "idle_replica_count": "idleReplicaCount",
        "initial_cooldown_period": "initialCooldownPeriod",
        "max_replica_count": "maxReplicaCount",
        "min_replica_count": "minReplicaCount",
        "polling_interval": "pollingInterval",
    },
)
class ScaledObjectSpec:
    def __init__(
        self,
        *,
        scale_target_ref: typing.Union["ScaledObjectSpecScaleTargetRef", typing.Dict[builtins.str, typing.Any]],
        triggers: typing.Sequence[typing.Union["ScaledObjectSpecTriggers", typing.Dict[builtins.str, typing.Any]]],
        advanced: typing.Optional[typing.Union["ScaledObjectSpecAdvanced", typing.Dict[builtins.str, typing.Any]]] = None,
        cooldown_period: typing.Optional[jsii.Number] = None,
        fallback: typing.Optional[typing.Union["ScaledObjectSpecFallback", typing.Dict[builtins.str, typing.Any]]] = None,
        idle_replica_count: typing.Optional[jsii.Number] = None,
        initial_cooldown_period: typing.Optional[jsii.Number] = None,
        max_replica_count: typing.Optional[jsii.Number] = None,
        min_replica_count: typing.Optional[jsii.Number] = None,
        polling_interval: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''ScaledObjectSpec is the spec for a ScaledObject resource.

        :param scale_target_ref: ScaleTarget holds the reference to the scale target Object.
        :param triggers: 
        :param advanced: AdvancedConfig specifies advance scaling options.
        :param cooldown_period: 
        :param fallback: Fallback is the spec for fallback options.
        :param idle_replica_count: 
        :param initial_cooldown_period: 
        :param max_replica_count: 
        :param min_replica_count: 
        :param polling_interval: 

        :schema: ScaledObjectSpec
        '''
        if isinstance(scale_target_ref, dict):
            scale_target_ref = ScaledObjectSpecScaleTargetRef(**scale_target_ref)
        if isinstance(advanced, dict):
            advanced = ScaledObjectSpecAdvanced(**advanced)
        if isinstance(fallback, dict):
            fallback = ScaledObjectSpecFallback(**fallback)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__00109c9cbd824b4b997a2ad7594f3a736edde10ba30123b8768b2a198a03ee3f)
            check_type(argname="argument scale_target_ref", value=scale_target_ref, expected_type=type_hints["scale_target_ref"])
            check_type(argname="argument triggers", value=triggers, expected_type=type_hints["triggers"])
            check_type(argname="argument advanced", value=advanced, expected_type=type_hints["advanced"])
            check_type(argname="argument cooldown_period", value=cooldown_period, expected_type=type_hints["cooldown_period"])
            check_type(argname="argument fallback", value=fallback, expected_type=type_hints["fallback"])
            check_type(argname="argument idle_replica_count", value=idle_replica_count, expected_type=type_hints["idle_replica_count"])
            check_type(argname="argument initial_cooldown_period", value=initial_cooldown_period, expected_type=type_hints["initial_cooldown_period"])
            check_type(argname="argument max_replica_count", value=max_replica_count, expected_type=type_hints["max_replica_count"])
            check_type(argname="argument min_replica_count", value=min_replica_count, expected_type=type_hints["min_replica_count"])
            check_type(argname="argument polling_interval", value=polling_interval, expected_type=type_hints["polling_interval"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "scale_target_ref": scale_target_ref,
            "triggers": triggers,
        }
        if advanced is not None:
            self._values["advanced"] = advanced
        if cooldown_period is not None:
            self._values["cooldown_period"] = cooldown_period
        if fallback is not None:
            self._values["fallback"] = fallback
        if idle_replica_count is not None:
            self._values["idle_replica_count"] = idle_replica_count
        if initial_cooldown_period is not None:
            self._values["initial_cooldown_period"] = initial_cooldown_period
        if max_replica_count is not None:
            self._values["max_replica_count"] = max_replica_count
        if min_replica_count is not None:
            self._values["min_replica_count"] = min_replica_count
        if polling_interval is not None:
            self._values["polling_interval"] = polling_interval

    @builtins.property
    def scale_target_ref(self) -> "ScaledObjectSpecScaleTargetRef":
        '''ScaleTarget holds the reference to the scale target Object.

        :schema: ScaledObjectSpec#scaleTargetRef
        '''
        result = self._values.get("scale_target_ref")
        assert result is not None, "Required property 'scale_target_ref' is missing"
        return typing.cast("ScaledObjectSpecScaleTargetRef", result)

    @builtins.property
    def triggers(self) -> typing.List["ScaledObjectSpecTriggers"]:
        '''
        :schema: ScaledObjectSpec#triggers
        '''
        result = self._values.get("triggers")
        assert result is not None, "Required property 'triggers' is missing"
        return typing.cast(typing.List["ScaledObjectSpecTriggers"], result)

    @builtins.property
    def advanced(self) -> typing.Optional["ScaledObjectSpecAdvanced"]:
        '''AdvancedConfig specifies advance scaling options.

        :schema: ScaledObjectSpec#advanced
        '''
        result = self._values.get("advanced")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvanced"], result)

    @builtins.property
    def cooldown_period(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#cooldownPeriod
        '''
        result = self._values.get("cooldown_period")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def fallback(self) -> typing.Optional["ScaledObjectSpecFallback"]:
        '''Fallback is the spec for fallback options.

        :schema: ScaledObjectSpec#fallback
        '''
        result = self._values.get("fallback")
        return typing.cast(typing.Optional["ScaledObjectSpecFallback"], result)

    @builtins.property
    def idle_replica_count(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#idleReplicaCount
        '''
        result = self._values.get("idle_replica_count")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def initial_cooldown_period(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#initialCooldownPeriod
        '''
        result = self._values.get("initial_cooldown_period")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def max_replica_count(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#maxReplicaCount
        '''
        result = self._values.get("max_replica_count")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def min_replica_count(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#minReplicaCount
        '''
        result = self._values.get("min_replica_count")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def polling_interval(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#pollingInterval
        '''
        result = self._values.get("polling_interval")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvanced",
    jsii_struct_bases=[],
    name_mapping={
        "horizontal_pod_autoscaler_config": "horizontalPodAutoscalerConfig",
        "restore_to_original_replica_count": "restoreToOriginalReplicaCount",
        "scaling_modifiers": "scalingModifiers",
    },
)
class ScaledObjectSpecAdvanced:
    def __init__(
        self,
        *,
        horizontal_pod_autoscaler_config: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        restore_to_original_replica_count: typing.Optional[builtins.bool] = None,
        scaling_modifiers: typing.Optional[typing.Union["ScaledObjectSpecAdvancedScalingModifiers", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''AdvancedConfig specifies advance scaling options.

        :param horizontal_pod_autoscaler_config: HorizontalPodAutoscalerConfig specifies horizontal scale config.
        :param restore_to_original_replica_count: 
        :param scaling_modifiers: ScalingModifiers describes advanced scaling logic options like formula.

        :schema: ScaledObjectSpecAdvanced
        '''
        if isinstance(horizontal_pod_autoscaler_config, dict):
            horizontal_pod_autoscaler_config = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig(**horizontal_pod_autoscaler_config)
        if isinstance(scaling_modifiers, dict):
            scaling_modifiers = ScaledObjectSpecAdvancedScalingModifiers(**scaling_modifiers)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b1518948ee266852eae7eb8274e2f78b6f62259f23eb27c223ec2a536926f45c)
            check_type(argname="argument horizontal_pod_autoscaler_config", value=horizontal_pod_autoscaler_config, expected_type=type_hints["horizontal_pod_autoscaler_config"])
            check_type(argname="argument restore_to_original_replica_count", value=restore_to_original_replica_count, expected_type=type_hints["restore_to_original_replica_count"])
            check_type(argname="argument scaling_modifiers", value=scaling_modifiers, expected_type=type_hints["scaling_modifiers"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if horizontal_pod_autoscaler_config is not None:
            self._values["horizontal_pod_autoscaler_config"] = horizontal_pod_autoscaler_config
        if restore_to_original_replica_count is not None:
            self._values["restore_to_original_replica_count"] = restore_to_original_replica_count
        if scaling_modifiers is not None:
            self._values["scaling_modifiers"] = scaling_modifiers

    @builtins.property
    def horizontal_pod_autoscaler_config(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig"]:
        '''HorizontalPodAutoscalerConfig specifies horizontal scale config.

        :schema: ScaledObjectSpecAdvanced#horizontalPodAutoscalerConfig
        '''
        result = self._values.get("horizontal_pod_autoscaler_config")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig"], result)

    @builtins.property
    def restore_to_original_replica_count(self) -> typing.Optional[builtins.bool]:
        '''
        :schema: ScaledObjectSpecAdvanced#restoreToOriginalReplicaCount
        '''
        result = self._values.get("restore_to_original_replica_count")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scaling_modifiers(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedScalingModifiers"]:
        '''ScalingModifiers describes advanced scaling logic options like formula.

        :schema: ScaledObjectSpecAdvanced#scalingModifiers
        '''
        result = self._values.get("scaling_modifiers")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedScalingModifiers"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvanced(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig",
    jsii_struct_bases=[],
    name_mapping={"behavior": "behavior", "name": "name"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig:
    def __init__(
        self,
        *,
        behavior: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior", typing.Dict[builtins.str, typing.Any]]] = None,
        name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''HorizontalPodAutoscalerConfig specifies horizontal scale config.

        :param behavior: HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).
        :param name: 

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig
        '''
        if isinstance(behavior, dict):
            behavior = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior(**behavior)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ea56eb0420458a4e4a5bdf5d9b16346da07e2e32cbb0a4135a8baabb81b30434)
            check_type(argname="argument behavior", value=behavior, expected_type=type_hints["behavior"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if behavior is not None:
            self._values["behavior"] = behavior
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def behavior(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior"]:
        '''HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig#behavior
        '''
        result = self._values.get("behavior")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior"], result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior",
    jsii_struct_bases=[],
    name_mapping={"scale_down": "scaleDown", "scale_up": "scaleUp"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior:
    def __init__(
        self,
        *,
        scale_down: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown", typing.Dict[builtins.str, typing.Any]]] = None,
        scale_up: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).

        :param scale_down: scaleDown is scaling policy for scaling Down. If not set, the default value is to allow to scale down to minReplicas pods, with a 300 second stabilization window (i.e., the highest recommendation for the last 300sec is used).
        :param scale_up: scaleUp is scaling policy for scaling Up. If not set, the default value is the higher of: - increase no more than 4 pods per 60 seconds - double the number of pods per 60 seconds No stabilization is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior
        '''
        if isinstance(scale_down, dict):
            scale_down = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown(**scale_down)
        if isinstance(scale_up, dict):
            scale_up = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp(**scale_up)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__23dc88d2baea8b8740e1c2397e854510a95fb1fb178c9e9b07c5755cedf91442)
            check_type(argname="argument scale_down", value=scale_down, expected_type=type_hints["scale_down"])
            check_type(argname="argument scale_up", value=scale_up, expected_type=type_hints["scale_up"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if scale_down is not None:
            self._values["scale_down"] = scale_down
        if scale_up is not None:
            self._values["scale_up"] = scale_up

    @builtins.property
    def scale_down(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown"]:
        '''scaleDown is scaling policy for scaling Down.

        If not set, the default value is to allow to scale down to minReplicas pods, with a
        300 second stabilization window (i.e., the highest recommendation for
        the last 300sec is used).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior#scaleDown
        '''
        result = self._values.get("scale_down")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown"], result)

    @builtins.property
    def scale_up(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp"]:
        '''scaleUp is scaling policy for scaling Up.

        If not set, the default value is the higher of:

        - increase no more than 4 pods per 60 seconds
        - double the number of pods per 60 seconds
          No stabilization is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior#scaleUp
        '''
        result = self._values.get("scale_up")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown",
    jsii_struct_bases=[],
    name_mapping={
        "policies": "policies",
        "select_policy": "selectPolicy",
        "stabilization_window_seconds": "stabilizationWindowSeconds",
        "tolerance": "tolerance",
    },
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown:
    def __init__(
        self,
        *,
        policies: typing.Optional[typing.Sequence[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies", typing.Dict[builtins.str, typing.Any]]]] = None,
        select_policy: typing.Optional[builtins.str] = None,
        stabilization_window_seconds: typing.Optional[jsii.Number] = None,
        tolerance: typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance"] = None,
    ) -> None:
        '''scaleDown is scaling policy for scaling Down.

        If not set, the default value is to allow to scale down to minReplicas pods, with a
        300 second stabilization window (i.e., the highest recommendation for
        the last 300sec is used).

        :param policies: policies is a list of potential scaling polices which can be used during scaling. If not set, use the default values: - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window. - For scale down: allow all pods to be removed in a 15s window.
        :param select_policy: selectPolicy is used to specify which policy should be used. If not set, the default value Max is used.
        :param stabilization_window_seconds: stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down. StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour). If not set, use the default values: - For scale up: 0 (i.e. no stabilization is done). - For scale down: 300 (i.e. the stabilization window is 300 seconds long).
        :param tolerance: tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%). For example, if autoscaling is configured with a memory consumption target of 100Mi, and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be triggered when the actual consumption falls below 95Mi or exceeds 101Mi. This is an beta field and requires the HPAConfigurableTolerance feature gate to be enabled.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1f2cb3b3e1213c4b0cf2bfd3f2b2283beeb9e13b979507abe367e4a89732f405)
            check_type(argname="argument policies", value=policies, expected_type=type_hints["policies"])
            check_type(argname="argument select_policy", value=select_policy, expected_type=type_hints["select_policy"])
            check_type(argname="argument stabilization_window_seconds", value=stabilization_window_seconds, expected_type=type_hints["stabilization_window_seconds"])
            check_type(argname="argument tolerance", value=tolerance, expected_type=type_hints["tolerance"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if policies is not None:
            self._values["policies"] = policies
        if select_policy is not None:
            self._values["select_policy"] = select_policy
        if stabilization_window_seconds is not None:
            self._values["stabilization_window_seconds"] = stabilization_window_seconds
        if tolerance is not None:
            self._values["tolerance"] = tolerance

    @builtins.property
    def policies(
        self,
    ) -> typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies"]]:
        '''policies is a list of potential scaling polices which can be used during scaling.

        If not set, use the default values:

        - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window.
        - For scale down: allow all pods to be removed in a 15s window.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#policies
        '''
        result = self._values.get("policies")
        return typing.cast(typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies"]], result)

    @builtins.property
    def select_policy(self) -> typing.Optional[builtins.str]:
        '''selectPolicy is used to specify which policy should be used.

        If not set, the default value Max is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#selectPolicy
        '''
        result = self._values.get("select_policy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def stabilization_window_seconds(self) -> typing.Optional[jsii.Number]:
        '''stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down.

        StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour).
        If not set, use the default values:

        - For scale up: 0 (i.e. no stabilization is done).
        - For scale down: 300 (i.e. the stabilization window is 300 seconds long).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#stabilizationWindowSeconds
        '''
        result = self._values.get("stabilization_window_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def tolerance(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance"]:
        '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

        For example, if autoscaling is configured with a memory consumption target of 100Mi,
        and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
        triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

        This is an beta field and requires the HPAConfigurableTolerance feature
        gate to be enabled.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#tolerance
        '''
        result = self._values.get("tolerance")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies",
    jsii_struct_bases=[],
    name_mapping={"period_seconds": "periodSeconds", "type": "type", "value": "value"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies:
    def __init__(
        self,
        *,
        period_seconds: jsii.Number,
        type: builtins.str,
        value: jsii.Number,
    ) -> None:
        '''HPAScalingPolicy is a single policy which must hold true for a specified past interval.

        :param period_seconds: periodSeconds specifies the window of time for which the policy should hold true. PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).
        :param type: type is used to specify the scaling policy.
        :param value: value contains the amount of change which is permitted by the policy. It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e00ba43eada0da0ca15fb38cd606c8a00c52483e1fdc1efc58bb17305e0ca99f)
            check_type(argname="argument period_seconds", value=period_seconds, expected_type=type_hints["period_seconds"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "period_seconds": period_seconds,
            "type": type,
            "value": value,
        }

    @builtins.property
    def period_seconds(self) -> jsii.Number:
        '''periodSeconds specifies the window of time for which the policy should hold true.

        PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies#periodSeconds
        '''
        result = self._values.get("period_seconds")
        assert result is not None, "Required property 'period_seconds' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def type(self) -> builtins.str:
        '''type is used to specify the scaling policy.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def value(self) -> jsii.Number:
        '''value contains the amount of change which is permitted by the policy.

        It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance(
    metaclass=jsii.JSIIMeta,
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance",
):
    '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

    For example, if autoscaling is configured with a memory consumption target of 100Mi,
    and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
    triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

    This is an beta field and requires the HPAConfigurableTolerance feature
    gate to be enabled.

    :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0bcb6a4779d9801ffbac2176070272fe7c58a006f07909961c4631818a5826f0)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fd6a5eb679b114af8f32bfcb98cfea9226925c8856237f362498c58a0144ebdf)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp",
    jsii_struct_bases=[],
    name_mapping={
        "policies": "policies",
        "select_policy": "selectPolicy",
        "stabilization_window_seconds": "stabilizationWindowSeconds",
        "tolerance": "tolerance",
    },
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp:
    def __init__(
        self,
        *,
        policies: typing.Optional[typing.Sequence[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies", typing.Dict[builtins.str, typing.Any]]]] = None,
        select_policy: typing.Optional[builtins.str] = None,
        stabilization_window_seconds: typing.Optional[jsii.Number] = None,
        tolerance: typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance"] = None,
    ) -> None:
        '''scaleUp is scaling policy for scaling Up.

        If not set, the default value is the higher of:

        - increase no more than 4 pods per 60 seconds
        - double the number of pods per 60 seconds
          No stabilization is used.

        :param policies: policies is a list of potential scaling polices which can be used during scaling. If not set, use the default values: - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window. - For scale down: allow all pods to be removed in a 15s window.
        :param select_policy: selectPolicy is used to specify which policy should be used. If not set, the default value Max is used.
        :param stabilization_window_seconds: stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down. StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour). If not set, use the default values: - For scale up: 0 (i.e. no stabilization is done). - For scale down: 300 (i.e. the stabilization window is 300 seconds long).
        :param tolerance: tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%). For example, if autoscaling is configured with a memory consumption target of 100Mi, and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be triggered when the actual consumption falls below 95Mi or exceeds 101Mi. This is an beta field and requires the HPAConfigurableTolerance feature gate to be enabled.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__10ab468e00447e70f12c26d5b301d3a746facc8cf9b660f68bfb506d061aeaf9)
            check_type(argname="argument policies", value=policies, expected_type=type_hints["policies"])
            check_type(argname="argument select_policy", value=select_policy, expected_type=type_hints["select_policy"])
            check_type(argname="argument stabilization_window_seconds", value=stabilization_window_seconds, expected_type=type_hints["stabilization_window_seconds"])
            check_type(argname="argument tolerance", value=tolerance, expected_type=type_hints["tolerance"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if policies is not None:
            self._values["policies"] = policies
        if select_policy is not None:
            self._values["select_policy"] = select_policy
        if stabilization_window_seconds is not None:
            self._values["stabilization_window_seconds"] = stabilization_window_seconds
        if tolerance is not None:
            self._values["tolerance"] = tolerance

    @builtins.property
    def policies(
        self,
    ) -> typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies"]]:
        '''policies is a list of potential scaling polices which can be used during scaling.

        If not set, use the default values:

        - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window.
        - For scale down: allow all pods to be removed in a 15s window.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#policies
        '''
        result = self._values.get("policies")
        return typing.cast(typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies"]], result)

    @builtins.property
    def select_policy(self) -> typing.Optional[builtins.str]:
        '''selectPolicy is used to specify which policy should be used.

        If not set, the default value Max is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#selectPolicy
        '''
        result = self._values.get("select_policy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def stabilization_window_seconds(self) -> typing.Optional[jsii.Number]:
        '''stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down.

        StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour).
        If not set, use the default values:

        - For scale up: 0 (i.e. no stabilization is done).
        - For scale down: 300 (i.e. the stabilization window is 300 seconds long).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#stabilizationWindowSeconds
        '''
        result = self._values.get("stabilization_window_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def tolerance(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance"]:
        '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

        For example, if autoscaling is configured with a memory consumption target of 100Mi,
        and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
        triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

        This is an beta field and requires the HPAConfigurableTolerance feature
        gate to be enabled.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#tolerance
        '''
        result = self._values.get("tolerance")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies",
    jsii_struct_bases=[],
    name_mapping={"period_seconds": "periodSeconds", "type": "type", "value": "value"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies:
    def __init__(
        self,
        *,
        period_seconds: jsii.Number,
        type: builtins.str,
        value: jsii.Number,
    ) -> None:
        '''HPAScalingPolicy is a single policy which must hold true for a specified past interval.

        :param period_seconds: periodSeconds specifies the window of time for which the policy should hold true. PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).
        :param type: type is used to specify the scaling policy.
        :param value: value contains the amount of change which is permitted by the policy. It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__84c67bc89f41f1102c3ce3aa4236014302fdfb2f6b7a7fd30d8486e67b248d51)
            check_type(argname="argument period_seconds", value=period_seconds, expected_type=type_hints["period_seconds"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "period_seconds": period_seconds,
            "type": type,
            "value": value,
        }

    @builtins.property
    def period_seconds(self) -> jsii.Number:
        '''periodSeconds specifies the window of time for which the policy should hold true.

        PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies#periodSeconds
        '''
        result = self._values.get("period_seconds")
        assert result is not None, "Required property 'period_seconds' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def type(self) -> builtins.str:
        '''type is used to specify the scaling policy.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def value(self) -> jsii.Number:
        '''value contains the amount of change which is permitted by the policy.

        It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance(
    metaclass=jsii.JSIIMeta,
    jsii_type="shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance",
):
    '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

    For example, if autoscaling is configured with a memory consumption target of 100Mi,
    and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
    triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

    This is an beta field and requires the HPAConfigurableTolerance feature
    gate to be enabled.

    :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c73e06507fad41a73c36740003d72aa3ffe7a57ac6c386870d3c03d713b1a2b0)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b7e350593daeb947b6767eba8810bdbf3bb48237dd1523555aad0b5bbafaeceb)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecAdvancedScalingModifiers",
    jsii_struct_bases=[],
    name_mapping={
        "activation_target": "activationTarget",
        "formula": "formula",
        "metric_type": "metricType",
        "target": "target",
    },
)
class ScaledObjectSpecAdvancedScalingModifiers:
    def __init__(
        self,
        *,
        activation_target: typing.Optional[builtins.str] = None,
        formula: typing.Optional[builtins.str] = None,
        metric_type: typing.Optional["ScaledObjectSpecAdvancedScalingModifiersMetricType"] = None,
        target: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ScalingModifiers describes advanced scaling logic options like formula.

        :param activation_target: 
        :param formula: 
        :param metric_type: MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".
        :param target: 

        :schema: ScaledObjectSpecAdvancedScalingModifiers
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a466a57077932754dff23f6228497f8439d631e11458209cf938b618ff5d2c1a)
            check_type(argname="argument activation_target", value=activation_target, expected_type=type_hints["activation_target"])
            check_type(argname="argument formula", value=formula, expected_type=type_hints["formula"])
            check_type(argname="argument metric_type", value=metric_type, expected_type=type_hints["metric_type"])
            check_type(argname="argument target", value=target, expected_type=type_hints["target"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if activation_target is not None:
            self._values["activation_target"] = activation_target
        if formula is not None:
            self._values["formula"] = formula
        if metric_type is not None:
            self._values["metric_type"] = metric_type
        if target is not None:
            self._values["target"] = target

    @builtins.property
    def activation_target(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedScalingModifiers#activationTarget
        '''
        result = self._values.get("activation_target")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def formula(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedScalingModifiers#formula
        '''
        result = self._values.get("formula")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metric_type(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedScalingModifiersMetricType"]:
        '''MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".

        :schema: ScaledObjectSpecAdvancedScalingModifiers#metricType
        '''
        result = self._values.get("metric_type")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedScalingModifiersMetricType"], result)

    @builtins.property
    def target(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedScalingModifiers#target
        '''
        result = self._values.get("target")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedScalingModifiers(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.ScaledObjectSpecAdvancedScalingModifiersMetricType")
class ScaledObjectSpecAdvancedScalingModifiersMetricType(enum.Enum):
    '''MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".

    :schema: ScaledObjectSpecAdvancedScalingModifiersMetricType
    '''

    AVERAGE_VALUE = "AVERAGE_VALUE"
    '''AverageValue.'''
    VALUE = "VALUE"
    '''Value.'''


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecFallback",
    jsii_struct_bases=[],
    name_mapping={
        "failure_threshold": "failureThreshold",
        "replicas": "replicas",
        "behavior": "behavior",
    },
)
class ScaledObjectSpecFallback:
    def __init__(
        self,
        *,
        failure_threshold: jsii.Number,
        replicas: jsii.Number,
        behavior: typing.Optional["ScaledObjectSpecFallbackBehavior"] = None,
    ) -> None:
        '''Fallback is the spec for fallback options.

        :param failure_threshold: 
        :param replicas: 
        :param behavior: 

        :schema: ScaledObjectSpecFallback
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__438e9963cde5f8326aefcd4de195a96a351f575e6e4bdeb014ff01f71b90e88a)
            check_type(argname="argument failure_threshold", value=failure_threshold, expected_type=type_hints["failure_threshold"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument behavior", value=behavior, expected_type=type_hints["behavior"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "failure_threshold": failure_threshold,
            "replicas": replicas,
        }
        if behavior is not None:
            self._values["behavior"] = behavior

    @builtins.property
    def failure_threshold(self) -> jsii.Number:
        '''
        :schema: ScaledObjectSpecFallback#failureThreshold
        '''
        result = self._values.get("failure_threshold")
        assert result is not None, "Required property 'failure_threshold' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def replicas(self) -> jsii.Number:
        '''
        :schema: ScaledObjectSpecFallback#replicas
        '''
        result = self._values.get("replicas")
        assert result is not None, "Required property 'replicas' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def behavior(self) -> typing.Optional["ScaledObjectSpecFallbackBehavior"]:
        '''
        :schema: ScaledObjectSpecFallback#behavior
        '''
        result = self._values.get("behavior")
        return typing.cast(typing.Optional["ScaledObjectSpecFallbackBehavior"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecFallback(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.ScaledObjectSpecFallbackBehavior")
class ScaledObjectSpecFallbackBehavior(enum.Enum):
    '''
    :schema: ScaledObjectSpecFallbackBehavior
    '''

    STATIC = "STATIC"
    '''static.'''
    CURRENT_REPLICAS = "CURRENT_REPLICAS"
    '''currentReplicas.'''
    CURRENT_REPLICAS_IF_HIGHER = "CURRENT_REPLICAS_IF_HIGHER"
    '''currentReplicasIfHigher.'''
    CURRENT_REPLICAS_IF_LOWER = "CURRENT_REPLICAS_IF_LOWER"
    '''currentReplicasIfLower.'''
    SCALING_MODIFIERS = "SCALING_MODIFIERS"
    '''scalingModifiers.'''


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecScaleTargetRef",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "api_version": "apiVersion",
        "env_source_container_name": "envSourceContainerName",
        "kind": "kind",
    },
)
class ScaledObjectSpecScaleTargetRef:
    def __init__(
        self,
        *,
        name: builtins.str,
        api_version: typing.Optional[builtins.str] = None,
        env_source_container_name: typing.Optional[builtins.str] = None,
        kind: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ScaleTarget holds the reference to the scale target Object.

        :param name: 
        :param api_version: 
        :param env_source_container_name: 
        :param kind: 

        :schema: ScaledObjectSpecScaleTargetRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0313a98dfa318d07fb1beca00a6a6c41d44e549ec9d100a521dbc918cf7ababd)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument api_version", value=api_version, expected_type=type_hints["api_version"])
            check_type(argname="argument env_source_container_name", value=env_source_container_name, expected_type=type_hints["env_source_container_name"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if api_version is not None:
            self._values["api_version"] = api_version
        if env_source_container_name is not None:
            self._values["env_source_container_name"] = env_source_container_name
        if kind is not None:
            self._values["kind"] = kind

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def api_version(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#apiVersion
        '''
        result = self._values.get("api_version")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def env_source_container_name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#envSourceContainerName
        '''
        result = self._values.get("env_source_container_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def kind(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#kind
        '''
        result = self._values.get("kind")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecScaleTargetRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecTriggers",
    jsii_struct_bases=[],
    name_mapping={
        "metadata": "metadata",
        "type": "type",
        "authentication_ref": "authenticationRef",
        "metric_type": "metricType",
        "name": "name",
        "use_cached_metrics": "useCachedMetrics",
    },
)
class ScaledObjectSpecTriggers:
    def __init__(
        self,
        *,
        metadata: typing.Mapping[builtins.str, builtins.str],
        type: builtins.str,
        authentication_ref: typing.Optional[typing.Union["ScaledObjectSpecTriggersAuthenticationRef", typing.Dict[builtins.str, typing.Any]]] = None,
        metric_type: typing.Optional[builtins.str] = None,
        name: typing.Optional[builtins.str] = None,
        use_cached_metrics: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''ScaleTriggers reference the scaler that will be used.

        :param metadata: 
        :param type: 
        :param authentication_ref: AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that is used to authenticate the scaler with the environment.
        :param metric_type: MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".
        :param name: 
        :param use_cached_metrics: 

        :schema: ScaledObjectSpecTriggers
        '''
        if isinstance(authentication_ref, dict):
            authentication_ref = ScaledObjectSpecTriggersAuthenticationRef(**authentication_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e1ed1e5eb614425b25057d35aef0f8671f1664ae82ebc2380111bab401803bb7)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument authentication_ref", value=authentication_ref, expected_type=type_hints["authentication_ref"])
            check_type(argname="argument metric_type", value=metric_type, expected_type=type_hints["metric_type"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument use_cached_metrics", value=use_cached_metrics, expected_type=type_hints["use_cached_metrics"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "metadata": metadata,
            "type": type,
        }
        if authentication_ref is not None:
            self._values["authentication_ref"] = authentication_ref
        if metric_type is not None:
            self._values["metric_type"] = metric_type
        if name is not None:
            self._values["name"] = name
        if use_cached_metrics is not None:
            self._values["use_cached_metrics"] = use_cached_metrics

    @builtins.property
    def metadata(self) -> typing.Mapping[builtins.str, builtins.str]:
        '''
        :schema: ScaledObjectSpecTriggers#metadata
        '''
        result = self._values.get("metadata")
        assert result is not None, "Required property 'metadata' is missing"
        return typing.cast(typing.Mapping[builtins.str, builtins.str], result)

    @builtins.property
    def type(self) -> builtins.str:
        '''
        :schema: ScaledObjectSpecTriggers#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def authentication_ref(
        self,
    ) -> typing.Optional["ScaledObjectSpecTriggersAuthenticationRef"]:
        '''AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that is used to authenticate the scaler with the environment.

        :schema: ScaledObjectSpecTriggers#authenticationRef
        '''
        result = self._values.get("authentication_ref")
        return typing.cast(typing.Optional["ScaledObjectSpecTriggersAuthenticationRef"], result)

    @builtins.property
    def metric_type(self) -> typing.Optional[builtins.str]:
        '''MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".

        :schema: ScaledObjectSpecTriggers#metricType
        '''
        result = self._values.get("metric_type")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecTriggers#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def use_cached_metrics(self) -> typing.Optional[builtins.bool]:
        '''
        :schema: ScaledObjectSpecTriggers#useCachedMetrics
        '''
        result = self._values.get("use_cached_metrics")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecTriggers(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.ScaledObjectSpecTriggersAuthenticationRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "kind": "kind"},
)
class ScaledObjectSpecTriggersAuthenticationRef:
    def __init__(
        self,
        *,
        name: builtins.str,
        kind: typing.Optional["ScaledObjectSpecTriggersAuthenticationRefKind"] = None,
    ) -> None:
        '''AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that is used to authenticate the scaler with the environment.

        :param name: 
        :param kind: Kind of the resource being referred to. Defaults to TriggerAuthentication. Default: TriggerAuthentication.

        :schema: ScaledObjectSpecTriggersAuthenticationRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7286b6855e1ed389150157dede8f7dd965fc5c6b4460311ba41375fd962f0b35)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if kind is not None:
            self._values["kind"] = kind

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: ScaledObjectSpecTriggersAuthenticationRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> typing.Optional["ScaledObjectSpecTriggersAuthenticationRefKind"]:
        '''Kind of the resource being referred to.

        Defaults to TriggerAuthentication.

        :default: TriggerAuthentication.

        :schema: ScaledObjectSpecTriggersAuthenticationRef#kind
        '''
        result = self._values.get("kind")
        return typing.cast(typing.Optional["ScaledObjectSpecTriggersAuthenticationRefKind"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecTriggersAuthenticationRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.ScaledObjectSpecTriggersAuthenticationRefKind")
class ScaledObjectSpecTriggersAuthenticationRefKind(enum.Enum):
    '''Kind of the resource being referred to.

    Defaults to TriggerAuthentication.

    :default: TriggerAuthentication.

    :schema: ScaledObjectSpecTriggersAuthenticationRefKind
    '''

    TRIGGER_AUTHENTICATION = "TRIGGER_AUTHENTICATION"
    '''TriggerAuthentication.'''
    CLUSTER_TRIGGER_AUTHENTICATION = "CLUSTER_TRIGGER_AUTHENTICATION"
    '''ClusterTriggerAuthentication.'''


class TriggerAuthentication(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="shkeda.TriggerAuthentication",
):
    '''TriggerAuthentication defines how a trigger can authenticate.

    :schema: TriggerAuthentication
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["TriggerAuthenticationSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "TriggerAuthentication" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: TriggerAuthenticationSpec defines the various ways to authenticate.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__86d7879649cf54d114bad392cc365421a89ac3f2b9726ca2f70ecb0ea180a0a7)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = TriggerAuthenticationProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["TriggerAuthenticationSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "TriggerAuthentication".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: TriggerAuthenticationSpec defines the various ways to authenticate.
        :param metadata: 
        '''
        props = TriggerAuthenticationProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "TriggerAuthentication".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class TriggerAuthenticationProps:
    def __init__(
        self,
        *,
        spec: typing.Union["TriggerAuthenticationSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''TriggerAuthentication defines how a trigger can authenticate.

        :param spec: TriggerAuthenticationSpec defines the various ways to authenticate.
        :param metadata: 

        :schema: TriggerAuthentication
        '''
        if isinstance(spec, dict):
            spec = TriggerAuthenticationSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__82440656b398561186ee179821252a14717c53f097fcdf7e1edf9cb6130d2493)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "TriggerAuthenticationSpec":
        '''TriggerAuthenticationSpec defines the various ways to authenticate.

        :schema: TriggerAuthentication#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("TriggerAuthenticationSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: TriggerAuthentication#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpec",
    jsii_struct_bases=[],
    name_mapping={
        "aws_secret_manager": "awsSecretManager",
        "azure_key_vault": "azureKeyVault",
        "bound_service_account_token": "boundServiceAccountToken",
        "config_map_target_ref": "configMapTargetRef",
        "env": "env",
        "file_path": "filePath",
        "gcp_secret_manager": "gcpSecretManager",
        "hashi_corp_vault": "hashiCorpVault",
        "oauth2": "oauth2",
        "pod_identity": "podIdentity",
        "secret_target_ref": "secretTargetRef",
    },
)
class TriggerAuthenticationSpec:
    def __init__(
        self,
        *,
        aws_secret_manager: typing.Optional[typing.Union["TriggerAuthenticationSpecAwsSecretManager", typing.Dict[builtins.str, typing.Any]]] = None,
        azure_key_vault: typing.Optional[typing.Union["TriggerAuthenticationSpecAzureKeyVault", typing.Dict[builtins.str, typing.Any]]] = None,
        bound_service_account_token: typing.Optional[typing.Sequence[typing.Union["TriggerAuthenticationSpecBoundServiceAccountToken", typing.Dict[builtins.str, typing.Any]]]] = None,
        config_map_target_ref: typing.Optional[typing.Sequence[typing.Union["TriggerAuthenticationSpecConfigMapTargetRef", typing.Dict[builtins.str, typing.Any]]]] = None,
        env: typing.Optional[typing.Sequence[typing.Union["TriggerAuthenticationSpecEnv", typing.Dict[builtins.str, typing.Any]]]] = None,
        file_path: typing.Optional[builtins.str] = None,
        gcp_secret_manager: typing.Optional[typing.Union["TriggerAuthenticationSpecGcpSecretManager", typing.Dict[builtins.str, typing.Any]]] = None,
        hashi_corp_vault: typing.Optional[typing.Union["TriggerAuthenticationSpecHashiCorpVault", typing.Dict[builtins.str, typing.Any]]] = None,
        oauth2: typing.Optional[typing.Union["TriggerAuthenticationSpecOauth2", typing.Dict[builtins.str, typing.Any]]] = None,
        pod_identity: typing.Optional[typing.Union["TriggerAuthenticationSpecPodIdentity", typing.Dict[builtins.str, typing.Any]]] = None,
        secret_target_ref: typing.Optional[typing.Sequence[typing.Union["TriggerAuthenticationSpecSecretTargetRef", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''TriggerAuthenticationSpec defines the various ways to authenticate.

        :param aws_secret_manager: AwsSecretManager is used to authenticate using AwsSecretManager.
        :param azure_key_vault: AzureKeyVault is used to authenticate using Azure Key Vault.
        :param bound_service_account_token: 
        :param config_map_target_ref: 
        :param env: 
        :param file_path: FilePath specifies a file containing auth parameters as JSON map[string]string. When set, auth params are read directly from this file instead.
        :param gcp_secret_manager: 
        :param hashi_corp_vault: HashiCorpVault is used to authenticate using Hashicorp Vault.
        :param oauth2: 
        :param pod_identity: AuthPodIdentity allows users to select the platform native identity mechanism.
        :param secret_target_ref: 

        :schema: TriggerAuthenticationSpec
        '''
        if isinstance(aws_secret_manager, dict):
            aws_secret_manager = TriggerAuthenticationSpecAwsSecretManager(**aws_secret_manager)
        if isinstance(azure_key_vault, dict):
            azure_key_vault = TriggerAuthenticationSpecAzureKeyVault(**azure_key_vault)
        if isinstance(gcp_secret_manager, dict):
            gcp_secret_manager = TriggerAuthenticationSpecGcpSecretManager(**gcp_secret_manager)
        if isinstance(hashi_corp_vault, dict):
            hashi_corp_vault = TriggerAuthenticationSpecHashiCorpVault(**hashi_corp_vault)
        if isinstance(oauth2, dict):
            oauth2 = TriggerAuthenticationSpecOauth2(**oauth2)
        if isinstance(pod_identity, dict):
            pod_identity = TriggerAuthenticationSpecPodIdentity(**pod_identity)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b001ffa3b7d5b412dbd85daf71549d5c203993f9640700343075c3bef6b342ac)
            check_type(argname="argument aws_secret_manager", value=aws_secret_manager, expected_type=type_hints["aws_secret_manager"])
            check_type(argname="argument azure_key_vault", value=azure_key_vault, expected_type=type_hints["azure_key_vault"])
            check_type(argname="argument bound_service_account_token", value=bound_service_account_token, expected_type=type_hints["bound_service_account_token"])
            check_type(argname="argument config_map_target_ref", value=config_map_target_ref, expected_type=type_hints["config_map_target_ref"])
            check_type(argname="argument env", value=env, expected_type=type_hints["env"])
            check_type(argname="argument file_path", value=file_path, expected_type=type_hints["file_path"])
            check_type(argname="argument gcp_secret_manager", value=gcp_secret_manager, expected_type=type_hints["gcp_secret_manager"])
            check_type(argname="argument hashi_corp_vault", value=hashi_corp_vault, expected_type=type_hints["hashi_corp_vault"])
            check_type(argname="argument oauth2", value=oauth2, expected_type=type_hints["oauth2"])
            check_type(argname="argument pod_identity", value=pod_identity, expected_type=type_hints["pod_identity"])
            check_type(argname="argument secret_target_ref", value=secret_target_ref, expected_type=type_hints["secret_target_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if aws_secret_manager is not None:
            self._values["aws_secret_manager"] = aws_secret_manager
        if azure_key_vault is not None:
            self._values["azure_key_vault"] = azure_key_vault
        if bound_service_account_token is not None:
            self._values["bound_service_account_token"] = bound_service_account_token
        if config_map_target_ref is not None:
            self._values["config_map_target_ref"] = config_map_target_ref
        if env is not None:
            self._values["env"] = env
        if file_path is not None:
            self._values["file_path"] = file_path
        if gcp_secret_manager is not None:
            self._values["gcp_secret_manager"] = gcp_secret_manager
        if hashi_corp_vault is not None:
            self._values["hashi_corp_vault"] = hashi_corp_vault
        if oauth2 is not None:
            self._values["oauth2"] = oauth2
        if pod_identity is not None:
            self._values["pod_identity"] = pod_identity
        if secret_target_ref is not None:
            self._values["secret_target_ref"] = secret_target_ref

    @builtins.property
    def aws_secret_manager(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAwsSecretManager"]:
        '''AwsSecretManager is used to authenticate using AwsSecretManager.

        :schema: TriggerAuthenticationSpec#awsSecretManager
        '''
        result = self._values.get("aws_secret_manager")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAwsSecretManager"], result)

    @builtins.property
    def azure_key_vault(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAzureKeyVault"]:
        '''AzureKeyVault is used to authenticate using Azure Key Vault.

        :schema: TriggerAuthenticationSpec#azureKeyVault
        '''
        result = self._values.get("azure_key_vault")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAzureKeyVault"], result)

    @builtins.property
    def bound_service_account_token(
        self,
    ) -> typing.Optional[typing.List["TriggerAuthenticationSpecBoundServiceAccountToken"]]:
        '''
        :schema: TriggerAuthenticationSpec#boundServiceAccountToken
        '''
        result = self._values.get("bound_service_account_token")
        return typing.cast(typing.Optional[typing.List["TriggerAuthenticationSpecBoundServiceAccountToken"]], result)

    @builtins.property
    def config_map_target_ref(
        self,
    ) -> typing.Optional[typing.List["TriggerAuthenticationSpecConfigMapTargetRef"]]:
        '''
        :schema: TriggerAuthenticationSpec#configMapTargetRef
        '''
        result = self._values.get("config_map_target_ref")
        return typing.cast(typing.Optional[typing.List["TriggerAuthenticationSpecConfigMapTargetRef"]], result)

    @builtins.property
    def env(self) -> typing.Optional[typing.List["TriggerAuthenticationSpecEnv"]]:
        '''
        :schema: TriggerAuthenticationSpec#env
        '''
        result = self._values.get("env")
        return typing.cast(typing.Optional[typing.List["TriggerAuthenticationSpecEnv"]], result)

    @builtins.property
    def file_path(self) -> typing.Optional[builtins.str]:
        '''FilePath specifies a file containing auth parameters as JSON map[string]string.

        When set, auth params are read directly from this file instead.

        :schema: TriggerAuthenticationSpec#filePath
        '''
        result = self._values.get("file_path")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def gcp_secret_manager(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecGcpSecretManager"]:
        '''
        :schema: TriggerAuthenticationSpec#gcpSecretManager
        '''
        result = self._values.get("gcp_secret_manager")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecGcpSecretManager"], result)

    @builtins.property
    def hashi_corp_vault(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecHashiCorpVault"]:
        '''HashiCorpVault is used to authenticate using Hashicorp Vault.

        :schema: TriggerAuthenticationSpec#hashiCorpVault
        '''
        result = self._values.get("hashi_corp_vault")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecHashiCorpVault"], result)

    @builtins.property
    def oauth2(self) -> typing.Optional["TriggerAuthenticationSpecOauth2"]:
        '''
        :schema: TriggerAuthenticationSpec#oauth2
        '''
        result = self._values.get("oauth2")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecOauth2"], result)

    @builtins.property
    def pod_identity(self) -> typing.Optional["TriggerAuthenticationSpecPodIdentity"]:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :schema: TriggerAuthenticationSpec#podIdentity
        '''
        result = self._values.get("pod_identity")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecPodIdentity"], result)

    @builtins.property
    def secret_target_ref(
        self,
    ) -> typing.Optional[typing.List["TriggerAuthenticationSpecSecretTargetRef"]]:
        '''
        :schema: TriggerAuthenticationSpec#secretTargetRef
        '''
        result = self._values.get("secret_target_ref")
        return typing.cast(typing.Optional[typing.List["TriggerAuthenticationSpecSecretTargetRef"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManager",
    jsii_struct_bases=[],
    name_mapping={
        "secrets": "secrets",
        "credentials": "credentials",
        "pod_identity": "podIdentity",
        "region": "region",
    },
)
class TriggerAuthenticationSpecAwsSecretManager:
    def __init__(
        self,
        *,
        secrets: typing.Sequence[typing.Union["TriggerAuthenticationSpecAwsSecretManagerSecrets", typing.Dict[builtins.str, typing.Any]]],
        credentials: typing.Optional[typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentials", typing.Dict[builtins.str, typing.Any]]] = None,
        pod_identity: typing.Optional[typing.Union["TriggerAuthenticationSpecAwsSecretManagerPodIdentity", typing.Dict[builtins.str, typing.Any]]] = None,
        region: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AwsSecretManager is used to authenticate using AwsSecretManager.

        :param secrets: 
        :param credentials: 
        :param pod_identity: AuthPodIdentity allows users to select the platform native identity mechanism.
        :param region: 

        :schema: TriggerAuthenticationSpecAwsSecretManager
        '''
        if isinstance(credentials, dict):
            credentials = TriggerAuthenticationSpecAwsSecretManagerCredentials(**credentials)
        if isinstance(pod_identity, dict):
            pod_identity = TriggerAuthenticationSpecAwsSecretManagerPodIdentity(**pod_identity)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__834c73a56ee692ef8a23a0738f2657467f54239a6b7d12756f8674488bc12c90)
            check_type(argname="argument secrets", value=secrets, expected_type=type_hints["secrets"])
            check_type(argname="argument credentials", value=credentials, expected_type=type_hints["credentials"])
            check_type(argname="argument pod_identity", value=pod_identity, expected_type=type_hints["pod_identity"])
            check_type(argname="argument region", value=region, expected_type=type_hints["region"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secrets": secrets,
        }
        if credentials is not None:
            self._values["credentials"] = credentials
        if pod_identity is not None:
            self._values["pod_identity"] = pod_identity
        if region is not None:
            self._values["region"] = region

    @builtins.property
    def secrets(
        self,
    ) -> typing.List["TriggerAuthenticationSpecAwsSecretManagerSecrets"]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManager#secrets
        '''
        result = self._values.get("secrets")
        assert result is not None, "Required property 'secrets' is missing"
        return typing.cast(typing.List["TriggerAuthenticationSpecAwsSecretManagerSecrets"], result)

    @builtins.property
    def credentials(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAwsSecretManagerCredentials"]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManager#credentials
        '''
        result = self._values.get("credentials")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAwsSecretManagerCredentials"], result)

    @builtins.property
    def pod_identity(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAwsSecretManagerPodIdentity"]:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :schema: TriggerAuthenticationSpecAwsSecretManager#podIdentity
        '''
        result = self._values.get("pod_identity")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAwsSecretManagerPodIdentity"], result)

    @builtins.property
    def region(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManager#region
        '''
        result = self._values.get("region")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManager(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentials",
    jsii_struct_bases=[],
    name_mapping={
        "access_key": "accessKey",
        "access_secret_key": "accessSecretKey",
        "access_token": "accessToken",
    },
)
class TriggerAuthenticationSpecAwsSecretManagerCredentials:
    def __init__(
        self,
        *,
        access_key: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey", typing.Dict[builtins.str, typing.Any]],
        access_secret_key: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey", typing.Dict[builtins.str, typing.Any]],
        access_token: typing.Optional[typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''
        :param access_key: 
        :param access_secret_key: 
        :param access_token: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentials
        '''
        if isinstance(access_key, dict):
            access_key = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey(**access_key)
        if isinstance(access_secret_key, dict):
            access_secret_key = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey(**access_secret_key)
        if isinstance(access_token, dict):
            access_token = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken(**access_token)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b8c571962afd7a858d759001255f3423430985bf1751d09b8acb8d83f5903c38)
            check_type(argname="argument access_key", value=access_key, expected_type=type_hints["access_key"])
            check_type(argname="argument access_secret_key", value=access_secret_key, expected_type=type_hints["access_secret_key"])
            check_type(argname="argument access_token", value=access_token, expected_type=type_hints["access_token"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "access_key": access_key,
            "access_secret_key": access_secret_key,
        }
        if access_token is not None:
            self._values["access_token"] = access_token

    @builtins.property
    def access_key(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentials#accessKey
        '''
        result = self._values.get("access_key")
        assert result is not None, "Required property 'access_key' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey", result)

    @builtins.property
    def access_secret_key(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentials#accessSecretKey
        '''
        result = self._values.get("access_secret_key")
        assert result is not None, "Required property 'access_secret_key' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey", result)

    @builtins.property
    def access_token(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken"]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentials#accessToken
        '''
        result = self._values.get("access_token")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentials(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey",
    jsii_struct_bases=[],
    name_mapping={"value_from": "valueFrom"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey:
    def __init__(
        self,
        *,
        value_from: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param value_from: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey
        '''
        if isinstance(value_from, dict):
            value_from = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom(**value_from)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fc3bce30061f30955b0ca63530d9886d28f7ead71134be4bb64cc5af08601827)
            check_type(argname="argument value_from", value=value_from, expected_type=type_hints["value_from"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value_from": value_from,
        }

    @builtins.property
    def value_from(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey#valueFrom
        '''
        result = self._values.get("value_from")
        assert result is not None, "Required property 'value_from' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom",
    jsii_struct_bases=[],
    name_mapping={"secret_key_ref": "secretKeyRef"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom:
    def __init__(
        self,
        *,
        secret_key_ref: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param secret_key_ref: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom
        '''
        if isinstance(secret_key_ref, dict):
            secret_key_ref = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef(**secret_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3400a763ef2c45552de3bdedc2f326ddbe75c7dbada6517edb5e4bb472cc0884)
            check_type(argname="argument secret_key_ref", value=secret_key_ref, expected_type=type_hints["secret_key_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secret_key_ref": secret_key_ref,
        }

    @builtins.property
    def secret_key_ref(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom#secretKeyRef
        '''
        result = self._values.get("secret_key_ref")
        assert result is not None, "Required property 'secret_key_ref' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef:
    def __init__(self, *, key: builtins.str, name: builtins.str) -> None:
        '''
        :param key: 
        :param name: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__342c7bce57b0d691cf897c02205bbe48922f97e1951185a678bb22dc23d2528d)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey",
    jsii_struct_bases=[],
    name_mapping={"value_from": "valueFrom"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey:
    def __init__(
        self,
        *,
        value_from: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param value_from: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey
        '''
        if isinstance(value_from, dict):
            value_from = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom(**value_from)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9cfb3f8a97caa825e997e5ff0a52a61f3eba4ca1b45cb40e75cb186e31fa2500)
            check_type(argname="argument value_from", value=value_from, expected_type=type_hints["value_from"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value_from": value_from,
        }

    @builtins.property
    def value_from(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey#valueFrom
        '''
        result = self._values.get("value_from")
        assert result is not None, "Required property 'value_from' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom",
    jsii_struct_bases=[],
    name_mapping={"secret_key_ref": "secretKeyRef"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom:
    def __init__(
        self,
        *,
        secret_key_ref: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param secret_key_ref: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom
        '''
        if isinstance(secret_key_ref, dict):
            secret_key_ref = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef(**secret_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1ba40f610a12e83e6696888478372a18a83c6f9989f0a92d392b0b020432f99f)
            check_type(argname="argument secret_key_ref", value=secret_key_ref, expected_type=type_hints["secret_key_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secret_key_ref": secret_key_ref,
        }

    @builtins.property
    def secret_key_ref(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom#secretKeyRef
        '''
        result = self._values.get("secret_key_ref")
        assert result is not None, "Required property 'secret_key_ref' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef:
    def __init__(self, *, key: builtins.str, name: builtins.str) -> None:
        '''
        :param key: 
        :param name: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ac1c9ec4307def6e6ff3e61642311b3ca7cc641e05c20744541c1d04bf78785b)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken",
    jsii_struct_bases=[],
    name_mapping={"value_from": "valueFrom"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken:
    def __init__(
        self,
        *,
        value_from: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param value_from: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken
        '''
        if isinstance(value_from, dict):
            value_from = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom(**value_from)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ad7697f5ca793546f9d047f916dfc004895bada570ca3974f9a2ce0ffbea9bea)
            check_type(argname="argument value_from", value=value_from, expected_type=type_hints["value_from"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value_from": value_from,
        }

    @builtins.property
    def value_from(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken#valueFrom
        '''
        result = self._values.get("value_from")
        assert result is not None, "Required property 'value_from' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom",
    jsii_struct_bases=[],
    name_mapping={"secret_key_ref": "secretKeyRef"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom:
    def __init__(
        self,
        *,
        secret_key_ref: typing.Union["TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param secret_key_ref: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom
        '''
        if isinstance(secret_key_ref, dict):
            secret_key_ref = TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef(**secret_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__feb4446c8320987215584dcdd9899abd49788e58f6bb38511d9edd51709635fc)
            check_type(argname="argument secret_key_ref", value=secret_key_ref, expected_type=type_hints["secret_key_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secret_key_ref": secret_key_ref,
        }

    @builtins.property
    def secret_key_ref(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef":
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom#secretKeyRef
        '''
        result = self._values.get("secret_key_ref")
        assert result is not None, "Required property 'secret_key_ref' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name"},
)
class TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef:
    def __init__(self, *, key: builtins.str, name: builtins.str) -> None:
        '''
        :param key: 
        :param name: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__70cfb296862f71c9be07755ece5d86863b30261ebcc6a00d3e86c24a2fa12776)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerPodIdentity",
    jsii_struct_bases=[],
    name_mapping={
        "provider": "provider",
        "external_id": "externalId",
        "identity_authority_host": "identityAuthorityHost",
        "identity_id": "identityId",
        "identity_owner": "identityOwner",
        "identity_tenant_id": "identityTenantId",
        "role_arn": "roleArn",
    },
)
class TriggerAuthenticationSpecAwsSecretManagerPodIdentity:
    def __init__(
        self,
        *,
        provider: "TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider",
        external_id: typing.Optional[builtins.str] = None,
        identity_authority_host: typing.Optional[builtins.str] = None,
        identity_id: typing.Optional[builtins.str] = None,
        identity_owner: typing.Optional["TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner"] = None,
        identity_tenant_id: typing.Optional[builtins.str] = None,
        role_arn: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :param provider: PodIdentityProvider contains the list of providers.
        :param external_id: ExternalID sets the External ID to be used when assuming an identity. This is only applicable when using AWS pod identity with a RoleArn.
        :param identity_authority_host: Set identityAuthorityHost to override the default Azure authority host. If this is set, then the IdentityTenantID must also be set
        :param identity_id: 
        :param identity_owner: IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload. Mutually exclusive with roleArn
        :param identity_tenant_id: Set identityTenantId to override the default Azure tenant id. If this is set, then the IdentityID must also be set
        :param role_arn: RoleArn sets the AWS RoleArn to be used. Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__62ac026f416bb3600e8098824e257c8299a1344ddb727645033057ba10443bf6)
            check_type(argname="argument provider", value=provider, expected_type=type_hints["provider"])
            check_type(argname="argument external_id", value=external_id, expected_type=type_hints["external_id"])
            check_type(argname="argument identity_authority_host", value=identity_authority_host, expected_type=type_hints["identity_authority_host"])
            check_type(argname="argument identity_id", value=identity_id, expected_type=type_hints["identity_id"])
            check_type(argname="argument identity_owner", value=identity_owner, expected_type=type_hints["identity_owner"])
            check_type(argname="argument identity_tenant_id", value=identity_tenant_id, expected_type=type_hints["identity_tenant_id"])
            check_type(argname="argument role_arn", value=role_arn, expected_type=type_hints["role_arn"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "provider": provider,
        }
        if external_id is not None:
            self._values["external_id"] = external_id
        if identity_authority_host is not None:
            self._values["identity_authority_host"] = identity_authority_host
        if identity_id is not None:
            self._values["identity_id"] = identity_id
        if identity_owner is not None:
            self._values["identity_owner"] = identity_owner
        if identity_tenant_id is not None:
            self._values["identity_tenant_id"] = identity_tenant_id
        if role_arn is not None:
            self._values["role_arn"] = role_arn

    @builtins.property
    def provider(
        self,
    ) -> "TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider":
        '''PodIdentityProvider contains the list of providers.

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#provider
        '''
        result = self._values.get("provider")
        assert result is not None, "Required property 'provider' is missing"
        return typing.cast("TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider", result)

    @builtins.property
    def external_id(self) -> typing.Optional[builtins.str]:
        '''ExternalID sets the External ID to be used when assuming an identity.

        This is only applicable when using AWS pod identity with a RoleArn.

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#externalID
        '''
        result = self._values.get("external_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_authority_host(self) -> typing.Optional[builtins.str]:
        '''Set identityAuthorityHost to override the default Azure authority host.

        If this is set, then the IdentityTenantID must also be set

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#identityAuthorityHost
        '''
        result = self._values.get("identity_authority_host")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_id(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#identityId
        '''
        result = self._values.get("identity_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_owner(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner"]:
        '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

        Mutually exclusive with roleArn

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#identityOwner
        '''
        result = self._values.get("identity_owner")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner"], result)

    @builtins.property
    def identity_tenant_id(self) -> typing.Optional[builtins.str]:
        '''Set identityTenantId to override the default Azure tenant id.

        If this is set, then the IdentityID must also be set

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#identityTenantId
        '''
        result = self._values.get("identity_tenant_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def role_arn(self) -> typing.Optional[builtins.str]:
        '''RoleArn sets the AWS RoleArn to be used.

        Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentity#roleArn
        '''
        result = self._values.get("role_arn")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerPodIdentity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner"
)
class TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner(enum.Enum):
    '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

    Mutually exclusive with roleArn

    :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner
    '''

    KEDA = "KEDA"
    '''keda.'''
    WORKLOAD = "WORKLOAD"
    '''workload.'''


@jsii.enum(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider"
)
class TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider(enum.Enum):
    '''PodIdentityProvider contains the list of providers.

    :schema: TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider
    '''

    AZURE_HYPHEN_WORKLOAD = "AZURE_HYPHEN_WORKLOAD"
    '''azure-workload.'''
    GCP = "GCP"
    '''gcp.'''
    AWS = "AWS"
    '''aws.'''
    AWS_HYPHEN_EKS = "AWS_HYPHEN_EKS"
    '''aws-eks.'''
    NONE = "NONE"
    '''none.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAwsSecretManagerSecrets",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "parameter": "parameter",
        "secret_key": "secretKey",
        "version_id": "versionId",
        "version_stage": "versionStage",
    },
)
class TriggerAuthenticationSpecAwsSecretManagerSecrets:
    def __init__(
        self,
        *,
        name: builtins.str,
        parameter: builtins.str,
        secret_key: typing.Optional[builtins.str] = None,
        version_id: typing.Optional[builtins.str] = None,
        version_stage: typing.Optional[builtins.str] = None,
    ) -> None:
        '''
        :param name: 
        :param parameter: 
        :param secret_key: 
        :param version_id: 
        :param version_stage: 

        :schema: TriggerAuthenticationSpecAwsSecretManagerSecrets
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a91352947b363e1929e2ea06e675435d301ea5035b63d63d05c0703873939305)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
            check_type(argname="argument secret_key", value=secret_key, expected_type=type_hints["secret_key"])
            check_type(argname="argument version_id", value=version_id, expected_type=type_hints["version_id"])
            check_type(argname="argument version_stage", value=version_stage, expected_type=type_hints["version_stage"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "parameter": parameter,
        }
        if secret_key is not None:
            self._values["secret_key"] = secret_key
        if version_id is not None:
            self._values["version_id"] = version_id
        if version_stage is not None:
            self._values["version_stage"] = version_stage

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerSecrets#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerSecrets#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def secret_key(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerSecrets#secretKey
        '''
        result = self._values.get("secret_key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def version_id(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerSecrets#versionId
        '''
        result = self._values.get("version_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def version_stage(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAwsSecretManagerSecrets#versionStage
        '''
        result = self._values.get("version_stage")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAwsSecretManagerSecrets(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVault",
    jsii_struct_bases=[],
    name_mapping={
        "secrets": "secrets",
        "vault_uri": "vaultUri",
        "cloud": "cloud",
        "credentials": "credentials",
        "pod_identity": "podIdentity",
    },
)
class TriggerAuthenticationSpecAzureKeyVault:
    def __init__(
        self,
        *,
        secrets: typing.Sequence[typing.Union["TriggerAuthenticationSpecAzureKeyVaultSecrets", typing.Dict[builtins.str, typing.Any]]],
        vault_uri: builtins.str,
        cloud: typing.Optional[typing.Union["TriggerAuthenticationSpecAzureKeyVaultCloud", typing.Dict[builtins.str, typing.Any]]] = None,
        credentials: typing.Optional[typing.Union["TriggerAuthenticationSpecAzureKeyVaultCredentials", typing.Dict[builtins.str, typing.Any]]] = None,
        pod_identity: typing.Optional[typing.Union["TriggerAuthenticationSpecAzureKeyVaultPodIdentity", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''AzureKeyVault is used to authenticate using Azure Key Vault.

        :param secrets: 
        :param vault_uri: 
        :param cloud: 
        :param credentials: 
        :param pod_identity: AuthPodIdentity allows users to select the platform native identity mechanism.

        :schema: TriggerAuthenticationSpecAzureKeyVault
        '''
        if isinstance(cloud, dict):
            cloud = TriggerAuthenticationSpecAzureKeyVaultCloud(**cloud)
        if isinstance(credentials, dict):
            credentials = TriggerAuthenticationSpecAzureKeyVaultCredentials(**credentials)
        if isinstance(pod_identity, dict):
            pod_identity = TriggerAuthenticationSpecAzureKeyVaultPodIdentity(**pod_identity)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a60f94349d9a1b4fdcc35dea64dc30311325a4f6c5c5d139569163dab5ad7bb3)
            check_type(argname="argument secrets", value=secrets, expected_type=type_hints["secrets"])
            check_type(argname="argument vault_uri", value=vault_uri, expected_type=type_hints["vault_uri"])
            check_type(argname="argument cloud", value=cloud, expected_type=type_hints["cloud"])
            check_type(argname="argument credentials", value=credentials, expected_type=type_hints["credentials"])
            check_type(argname="argument pod_identity", value=pod_identity, expected_type=type_hints["pod_identity"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secrets": secrets,
            "vault_uri": vault_uri,
        }
        if cloud is not None:
            self._values["cloud"] = cloud
        if credentials is not None:
            self._values["credentials"] = credentials
        if pod_identity is not None:
            self._values["pod_identity"] = pod_identity

    @builtins.property
    def secrets(self) -> typing.List["TriggerAuthenticationSpecAzureKeyVaultSecrets"]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVault#secrets
        '''
        result = self._values.get("secrets")
        assert result is not None, "Required property 'secrets' is missing"
        return typing.cast(typing.List["TriggerAuthenticationSpecAzureKeyVaultSecrets"], result)

    @builtins.property
    def vault_uri(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVault#vaultUri
        '''
        result = self._values.get("vault_uri")
        assert result is not None, "Required property 'vault_uri' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def cloud(self) -> typing.Optional["TriggerAuthenticationSpecAzureKeyVaultCloud"]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVault#cloud
        '''
        result = self._values.get("cloud")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAzureKeyVaultCloud"], result)

    @builtins.property
    def credentials(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAzureKeyVaultCredentials"]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVault#credentials
        '''
        result = self._values.get("credentials")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAzureKeyVaultCredentials"], result)

    @builtins.property
    def pod_identity(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAzureKeyVaultPodIdentity"]:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :schema: TriggerAuthenticationSpecAzureKeyVault#podIdentity
        '''
        result = self._values.get("pod_identity")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAzureKeyVaultPodIdentity"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVault(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultCloud",
    jsii_struct_bases=[],
    name_mapping={
        "type": "type",
        "active_directory_endpoint": "activeDirectoryEndpoint",
        "key_vault_resource_url": "keyVaultResourceUrl",
    },
)
class TriggerAuthenticationSpecAzureKeyVaultCloud:
    def __init__(
        self,
        *,
        type: builtins.str,
        active_directory_endpoint: typing.Optional[builtins.str] = None,
        key_vault_resource_url: typing.Optional[builtins.str] = None,
    ) -> None:
        '''
        :param type: 
        :param active_directory_endpoint: 
        :param key_vault_resource_url: 

        :schema: TriggerAuthenticationSpecAzureKeyVaultCloud
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7018f3c3199d4d081b6019002fc68461e8fb1736ca98982a936001f50ab4922e)
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument active_directory_endpoint", value=active_directory_endpoint, expected_type=type_hints["active_directory_endpoint"])
            check_type(argname="argument key_vault_resource_url", value=key_vault_resource_url, expected_type=type_hints["key_vault_resource_url"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "type": type,
        }
        if active_directory_endpoint is not None:
            self._values["active_directory_endpoint"] = active_directory_endpoint
        if key_vault_resource_url is not None:
            self._values["key_vault_resource_url"] = key_vault_resource_url

    @builtins.property
    def type(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCloud#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def active_directory_endpoint(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCloud#activeDirectoryEndpoint
        '''
        result = self._values.get("active_directory_endpoint")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key_vault_resource_url(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCloud#keyVaultResourceURL
        '''
        result = self._values.get("key_vault_resource_url")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultCloud(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultCredentials",
    jsii_struct_bases=[],
    name_mapping={
        "client_id": "clientId",
        "client_secret": "clientSecret",
        "tenant_id": "tenantId",
    },
)
class TriggerAuthenticationSpecAzureKeyVaultCredentials:
    def __init__(
        self,
        *,
        client_id: builtins.str,
        client_secret: typing.Union["TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret", typing.Dict[builtins.str, typing.Any]],
        tenant_id: builtins.str,
    ) -> None:
        '''
        :param client_id: 
        :param client_secret: 
        :param tenant_id: 

        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentials
        '''
        if isinstance(client_secret, dict):
            client_secret = TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret(**client_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ed228e650950b4b9d23fb6710a430e9f86bdf97feba86876fbfb97a98a5979fc)
            check_type(argname="argument client_id", value=client_id, expected_type=type_hints["client_id"])
            check_type(argname="argument client_secret", value=client_secret, expected_type=type_hints["client_secret"])
            check_type(argname="argument tenant_id", value=tenant_id, expected_type=type_hints["tenant_id"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "client_id": client_id,
            "client_secret": client_secret,
            "tenant_id": tenant_id,
        }

    @builtins.property
    def client_id(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentials#clientId
        '''
        result = self._values.get("client_id")
        assert result is not None, "Required property 'client_id' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def client_secret(
        self,
    ) -> "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret":
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentials#clientSecret
        '''
        result = self._values.get("client_secret")
        assert result is not None, "Required property 'client_secret' is missing"
        return typing.cast("TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret", result)

    @builtins.property
    def tenant_id(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentials#tenantId
        '''
        result = self._values.get("tenant_id")
        assert result is not None, "Required property 'tenant_id' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultCredentials(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret",
    jsii_struct_bases=[],
    name_mapping={"value_from": "valueFrom"},
)
class TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret:
    def __init__(
        self,
        *,
        value_from: typing.Union["TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param value_from: 

        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret
        '''
        if isinstance(value_from, dict):
            value_from = TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom(**value_from)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8e5fb8a78124c1ab6533a8860a7bf12a08db5d31cbf7370fd242d6f6dccbec43)
            check_type(argname="argument value_from", value=value_from, expected_type=type_hints["value_from"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value_from": value_from,
        }

    @builtins.property
    def value_from(
        self,
    ) -> "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom":
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret#valueFrom
        '''
        result = self._values.get("value_from")
        assert result is not None, "Required property 'value_from' is missing"
        return typing.cast("TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom",
    jsii_struct_bases=[],
    name_mapping={"secret_key_ref": "secretKeyRef"},
)
class TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom:
    def __init__(
        self,
        *,
        secret_key_ref: typing.Union["TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param secret_key_ref: 

        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom
        '''
        if isinstance(secret_key_ref, dict):
            secret_key_ref = TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef(**secret_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c5e29f2d6f2b8b7bf801a90dd2ffd181160034a6f405f504a5f664fd226cb8d5)
            check_type(argname="argument secret_key_ref", value=secret_key_ref, expected_type=type_hints["secret_key_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secret_key_ref": secret_key_ref,
        }

    @builtins.property
    def secret_key_ref(
        self,
    ) -> "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef":
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom#secretKeyRef
        '''
        result = self._values.get("secret_key_ref")
        assert result is not None, "Required property 'secret_key_ref' is missing"
        return typing.cast("TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name"},
)
class TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef:
    def __init__(self, *, key: builtins.str, name: builtins.str) -> None:
        '''
        :param key: 
        :param name: 

        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9778bdb524918617d185d2fe1758e8f31ad3794951ac58ed20d6fe218b8befe5)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultPodIdentity",
    jsii_struct_bases=[],
    name_mapping={
        "provider": "provider",
        "external_id": "externalId",
        "identity_authority_host": "identityAuthorityHost",
        "identity_id": "identityId",
        "identity_owner": "identityOwner",
        "identity_tenant_id": "identityTenantId",
        "role_arn": "roleArn",
    },
)
class TriggerAuthenticationSpecAzureKeyVaultPodIdentity:
    def __init__(
        self,
        *,
        provider: "TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider",
        external_id: typing.Optional[builtins.str] = None,
        identity_authority_host: typing.Optional[builtins.str] = None,
        identity_id: typing.Optional[builtins.str] = None,
        identity_owner: typing.Optional["TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner"] = None,
        identity_tenant_id: typing.Optional[builtins.str] = None,
        role_arn: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :param provider: PodIdentityProvider contains the list of providers.
        :param external_id: ExternalID sets the External ID to be used when assuming an identity. This is only applicable when using AWS pod identity with a RoleArn.
        :param identity_authority_host: Set identityAuthorityHost to override the default Azure authority host. If this is set, then the IdentityTenantID must also be set
        :param identity_id: 
        :param identity_owner: IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload. Mutually exclusive with roleArn
        :param identity_tenant_id: Set identityTenantId to override the default Azure tenant id. If this is set, then the IdentityID must also be set
        :param role_arn: RoleArn sets the AWS RoleArn to be used. Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__935b7f900712478289bd7ba71db402958da152ed591110e4c27cbf4f714b0d00)
            check_type(argname="argument provider", value=provider, expected_type=type_hints["provider"])
            check_type(argname="argument external_id", value=external_id, expected_type=type_hints["external_id"])
            check_type(argname="argument identity_authority_host", value=identity_authority_host, expected_type=type_hints["identity_authority_host"])
            check_type(argname="argument identity_id", value=identity_id, expected_type=type_hints["identity_id"])
            check_type(argname="argument identity_owner", value=identity_owner, expected_type=type_hints["identity_owner"])
            check_type(argname="argument identity_tenant_id", value=identity_tenant_id, expected_type=type_hints["identity_tenant_id"])
            check_type(argname="argument role_arn", value=role_arn, expected_type=type_hints["role_arn"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "provider": provider,
        }
        if external_id is not None:
            self._values["external_id"] = external_id
        if identity_authority_host is not None:
            self._values["identity_authority_host"] = identity_authority_host
        if identity_id is not None:
            self._values["identity_id"] = identity_id
        if identity_owner is not None:
            self._values["identity_owner"] = identity_owner
        if identity_tenant_id is not None:
            self._values["identity_tenant_id"] = identity_tenant_id
        if role_arn is not None:
            self._values["role_arn"] = role_arn

    @builtins.property
    def provider(self) -> "TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider":
        '''PodIdentityProvider contains the list of providers.

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#provider
        '''
        result = self._values.get("provider")
        assert result is not None, "Required property 'provider' is missing"
        return typing.cast("TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider", result)

    @builtins.property
    def external_id(self) -> typing.Optional[builtins.str]:
        '''ExternalID sets the External ID to be used when assuming an identity.

        This is only applicable when using AWS pod identity with a RoleArn.

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#externalID
        '''
        result = self._values.get("external_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_authority_host(self) -> typing.Optional[builtins.str]:
        '''Set identityAuthorityHost to override the default Azure authority host.

        If this is set, then the IdentityTenantID must also be set

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#identityAuthorityHost
        '''
        result = self._values.get("identity_authority_host")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_id(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#identityId
        '''
        result = self._values.get("identity_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_owner(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner"]:
        '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

        Mutually exclusive with roleArn

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#identityOwner
        '''
        result = self._values.get("identity_owner")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner"], result)

    @builtins.property
    def identity_tenant_id(self) -> typing.Optional[builtins.str]:
        '''Set identityTenantId to override the default Azure tenant id.

        If this is set, then the IdentityID must also be set

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#identityTenantId
        '''
        result = self._values.get("identity_tenant_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def role_arn(self) -> typing.Optional[builtins.str]:
        '''RoleArn sets the AWS RoleArn to be used.

        Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentity#roleArn
        '''
        result = self._values.get("role_arn")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultPodIdentity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner"
)
class TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner(enum.Enum):
    '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

    Mutually exclusive with roleArn

    :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner
    '''

    KEDA = "KEDA"
    '''keda.'''
    WORKLOAD = "WORKLOAD"
    '''workload.'''


@jsii.enum(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider"
)
class TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider(enum.Enum):
    '''PodIdentityProvider contains the list of providers.

    :schema: TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider
    '''

    AZURE_HYPHEN_WORKLOAD = "AZURE_HYPHEN_WORKLOAD"
    '''azure-workload.'''
    GCP = "GCP"
    '''gcp.'''
    AWS = "AWS"
    '''aws.'''
    AWS_HYPHEN_EKS = "AWS_HYPHEN_EKS"
    '''aws-eks.'''
    NONE = "NONE"
    '''none.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecAzureKeyVaultSecrets",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "parameter": "parameter", "version": "version"},
)
class TriggerAuthenticationSpecAzureKeyVaultSecrets:
    def __init__(
        self,
        *,
        name: builtins.str,
        parameter: builtins.str,
        version: typing.Optional[builtins.str] = None,
    ) -> None:
        '''
        :param name: 
        :param parameter: 
        :param version: 

        :schema: TriggerAuthenticationSpecAzureKeyVaultSecrets
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ecfa15da4b4ca8fafcbf06509221417ef466357f3522b68a44f234a4c35dd61c)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
            check_type(argname="argument version", value=version, expected_type=type_hints["version"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "parameter": parameter,
        }
        if version is not None:
            self._values["version"] = version

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultSecrets#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultSecrets#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def version(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecAzureKeyVaultSecrets#version
        '''
        result = self._values.get("version")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecAzureKeyVaultSecrets(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecBoundServiceAccountToken",
    jsii_struct_bases=[],
    name_mapping={
        "parameter": "parameter",
        "service_account_name": "serviceAccountName",
    },
)
class TriggerAuthenticationSpecBoundServiceAccountToken:
    def __init__(
        self,
        *,
        parameter: builtins.str,
        service_account_name: builtins.str,
    ) -> None:
        '''
        :param parameter: 
        :param service_account_name: 

        :schema: TriggerAuthenticationSpecBoundServiceAccountToken
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f3c3aa1358c9a101e830470335a42d6937a03f642eb938f4f588fcba7e615de7)
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
            check_type(argname="argument service_account_name", value=service_account_name, expected_type=type_hints["service_account_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "parameter": parameter,
            "service_account_name": service_account_name,
        }

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecBoundServiceAccountToken#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def service_account_name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecBoundServiceAccountToken#serviceAccountName
        '''
        result = self._values.get("service_account_name")
        assert result is not None, "Required property 'service_account_name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecBoundServiceAccountToken(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecConfigMapTargetRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "parameter": "parameter"},
)
class TriggerAuthenticationSpecConfigMapTargetRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: builtins.str,
        parameter: builtins.str,
    ) -> None:
        '''AuthConfigMapTargetRef is used to authenticate using a reference to a config map.

        :param key: 
        :param name: 
        :param parameter: 

        :schema: TriggerAuthenticationSpecConfigMapTargetRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2d50196e1f6f9b331ad6424326d26f1932898b1b344e6e2d7278ff7dbbe77310)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
            "parameter": parameter,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecConfigMapTargetRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecConfigMapTargetRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecConfigMapTargetRef#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecConfigMapTargetRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecEnv",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "parameter": "parameter",
        "container_name": "containerName",
    },
)
class TriggerAuthenticationSpecEnv:
    def __init__(
        self,
        *,
        name: builtins.str,
        parameter: builtins.str,
        container_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AuthEnvironment is used to authenticate using environment variables in the destination ScaleTarget spec.

        :param name: 
        :param parameter: 
        :param container_name: 

        :schema: TriggerAuthenticationSpecEnv
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__27fca8002f6122c8c41ab0a60fa900ef10c655b23d92b27a79578a01fc05fdf6)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
            check_type(argname="argument container_name", value=container_name, expected_type=type_hints["container_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "parameter": parameter,
        }
        if container_name is not None:
            self._values["container_name"] = container_name

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecEnv#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecEnv#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def container_name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecEnv#containerName
        '''
        result = self._values.get("container_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecEnv(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManager",
    jsii_struct_bases=[],
    name_mapping={
        "secrets": "secrets",
        "credentials": "credentials",
        "pod_identity": "podIdentity",
    },
)
class TriggerAuthenticationSpecGcpSecretManager:
    def __init__(
        self,
        *,
        secrets: typing.Sequence[typing.Union["TriggerAuthenticationSpecGcpSecretManagerSecrets", typing.Dict[builtins.str, typing.Any]]],
        credentials: typing.Optional[typing.Union["TriggerAuthenticationSpecGcpSecretManagerCredentials", typing.Dict[builtins.str, typing.Any]]] = None,
        pod_identity: typing.Optional[typing.Union["TriggerAuthenticationSpecGcpSecretManagerPodIdentity", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''
        :param secrets: 
        :param credentials: 
        :param pod_identity: AuthPodIdentity allows users to select the platform native identity mechanism.

        :schema: TriggerAuthenticationSpecGcpSecretManager
        '''
        if isinstance(credentials, dict):
            credentials = TriggerAuthenticationSpecGcpSecretManagerCredentials(**credentials)
        if isinstance(pod_identity, dict):
            pod_identity = TriggerAuthenticationSpecGcpSecretManagerPodIdentity(**pod_identity)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__eb83b54de1713147485bb0e69284d75f61a79c8402ffe8029fdb93671eca3c3a)
            check_type(argname="argument secrets", value=secrets, expected_type=type_hints["secrets"])
            check_type(argname="argument credentials", value=credentials, expected_type=type_hints["credentials"])
            check_type(argname="argument pod_identity", value=pod_identity, expected_type=type_hints["pod_identity"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secrets": secrets,
        }
        if credentials is not None:
            self._values["credentials"] = credentials
        if pod_identity is not None:
            self._values["pod_identity"] = pod_identity

    @builtins.property
    def secrets(
        self,
    ) -> typing.List["TriggerAuthenticationSpecGcpSecretManagerSecrets"]:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManager#secrets
        '''
        result = self._values.get("secrets")
        assert result is not None, "Required property 'secrets' is missing"
        return typing.cast(typing.List["TriggerAuthenticationSpecGcpSecretManagerSecrets"], result)

    @builtins.property
    def credentials(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecGcpSecretManagerCredentials"]:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManager#credentials
        '''
        result = self._values.get("credentials")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecGcpSecretManagerCredentials"], result)

    @builtins.property
    def pod_identity(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecGcpSecretManagerPodIdentity"]:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :schema: TriggerAuthenticationSpecGcpSecretManager#podIdentity
        '''
        result = self._values.get("pod_identity")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecGcpSecretManagerPodIdentity"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManager(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerCredentials",
    jsii_struct_bases=[],
    name_mapping={"client_secret": "clientSecret"},
)
class TriggerAuthenticationSpecGcpSecretManagerCredentials:
    def __init__(
        self,
        *,
        client_secret: typing.Union["TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param client_secret: 

        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentials
        '''
        if isinstance(client_secret, dict):
            client_secret = TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret(**client_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__90d1e85341b3e4ad0fe1fe06b02db4ed824bf23e7ec38db8c676b523bb6ddd70)
            check_type(argname="argument client_secret", value=client_secret, expected_type=type_hints["client_secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "client_secret": client_secret,
        }

    @builtins.property
    def client_secret(
        self,
    ) -> "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret":
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentials#clientSecret
        '''
        result = self._values.get("client_secret")
        assert result is not None, "Required property 'client_secret' is missing"
        return typing.cast("TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManagerCredentials(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret",
    jsii_struct_bases=[],
    name_mapping={"value_from": "valueFrom"},
)
class TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret:
    def __init__(
        self,
        *,
        value_from: typing.Union["TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param value_from: 

        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret
        '''
        if isinstance(value_from, dict):
            value_from = TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom(**value_from)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0c716a91d75c3551e360281c4e5f05efd33a6374ad9c94f43a64f26932286bd7)
            check_type(argname="argument value_from", value=value_from, expected_type=type_hints["value_from"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value_from": value_from,
        }

    @builtins.property
    def value_from(
        self,
    ) -> "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom":
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret#valueFrom
        '''
        result = self._values.get("value_from")
        assert result is not None, "Required property 'value_from' is missing"
        return typing.cast("TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom",
    jsii_struct_bases=[],
    name_mapping={"secret_key_ref": "secretKeyRef"},
)
class TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom:
    def __init__(
        self,
        *,
        secret_key_ref: typing.Union["TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param secret_key_ref: 

        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom
        '''
        if isinstance(secret_key_ref, dict):
            secret_key_ref = TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef(**secret_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a85c6348eb38b7f21b6eef141c2854a7a57fedc0c7fdf4ecadc58b8f61e20a7e)
            check_type(argname="argument secret_key_ref", value=secret_key_ref, expected_type=type_hints["secret_key_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secret_key_ref": secret_key_ref,
        }

    @builtins.property
    def secret_key_ref(
        self,
    ) -> "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef":
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom#secretKeyRef
        '''
        result = self._values.get("secret_key_ref")
        assert result is not None, "Required property 'secret_key_ref' is missing"
        return typing.cast("TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name"},
)
class TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef:
    def __init__(self, *, key: builtins.str, name: builtins.str) -> None:
        '''
        :param key: 
        :param name: 

        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__80348d9d103f8588e1ea7cd101806f0cfbe6639e2c8fbf7320bee0d87db09f6e)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerPodIdentity",
    jsii_struct_bases=[],
    name_mapping={
        "provider": "provider",
        "external_id": "externalId",
        "identity_authority_host": "identityAuthorityHost",
        "identity_id": "identityId",
        "identity_owner": "identityOwner",
        "identity_tenant_id": "identityTenantId",
        "role_arn": "roleArn",
    },
)
class TriggerAuthenticationSpecGcpSecretManagerPodIdentity:
    def __init__(
        self,
        *,
        provider: "TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider",
        external_id: typing.Optional[builtins.str] = None,
        identity_authority_host: typing.Optional[builtins.str] = None,
        identity_id: typing.Optional[builtins.str] = None,
        identity_owner: typing.Optional["TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner"] = None,
        identity_tenant_id: typing.Optional[builtins.str] = None,
        role_arn: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :param provider: PodIdentityProvider contains the list of providers.
        :param external_id: ExternalID sets the External ID to be used when assuming an identity. This is only applicable when using AWS pod identity with a RoleArn.
        :param identity_authority_host: Set identityAuthorityHost to override the default Azure authority host. If this is set, then the IdentityTenantID must also be set
        :param identity_id: 
        :param identity_owner: IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload. Mutually exclusive with roleArn
        :param identity_tenant_id: Set identityTenantId to override the default Azure tenant id. If this is set, then the IdentityID must also be set
        :param role_arn: RoleArn sets the AWS RoleArn to be used. Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c4b631e6cf8ebb03124aa853435c07802521d06d5715f9db4ff78c7cb4b03b57)
            check_type(argname="argument provider", value=provider, expected_type=type_hints["provider"])
            check_type(argname="argument external_id", value=external_id, expected_type=type_hints["external_id"])
            check_type(argname="argument identity_authority_host", value=identity_authority_host, expected_type=type_hints["identity_authority_host"])
            check_type(argname="argument identity_id", value=identity_id, expected_type=type_hints["identity_id"])
            check_type(argname="argument identity_owner", value=identity_owner, expected_type=type_hints["identity_owner"])
            check_type(argname="argument identity_tenant_id", value=identity_tenant_id, expected_type=type_hints["identity_tenant_id"])
            check_type(argname="argument role_arn", value=role_arn, expected_type=type_hints["role_arn"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "provider": provider,
        }
        if external_id is not None:
            self._values["external_id"] = external_id
        if identity_authority_host is not None:
            self._values["identity_authority_host"] = identity_authority_host
        if identity_id is not None:
            self._values["identity_id"] = identity_id
        if identity_owner is not None:
            self._values["identity_owner"] = identity_owner
        if identity_tenant_id is not None:
            self._values["identity_tenant_id"] = identity_tenant_id
        if role_arn is not None:
            self._values["role_arn"] = role_arn

    @builtins.property
    def provider(
        self,
    ) -> "TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider":
        '''PodIdentityProvider contains the list of providers.

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#provider
        '''
        result = self._values.get("provider")
        assert result is not None, "Required property 'provider' is missing"
        return typing.cast("TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider", result)

    @builtins.property
    def external_id(self) -> typing.Optional[builtins.str]:
        '''ExternalID sets the External ID to be used when assuming an identity.

        This is only applicable when using AWS pod identity with a RoleArn.

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#externalID
        '''
        result = self._values.get("external_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_authority_host(self) -> typing.Optional[builtins.str]:
        '''Set identityAuthorityHost to override the default Azure authority host.

        If this is set, then the IdentityTenantID must also be set

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#identityAuthorityHost
        '''
        result = self._values.get("identity_authority_host")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_id(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#identityId
        '''
        result = self._values.get("identity_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_owner(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner"]:
        '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

        Mutually exclusive with roleArn

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#identityOwner
        '''
        result = self._values.get("identity_owner")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner"], result)

    @builtins.property
    def identity_tenant_id(self) -> typing.Optional[builtins.str]:
        '''Set identityTenantId to override the default Azure tenant id.

        If this is set, then the IdentityID must also be set

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#identityTenantId
        '''
        result = self._values.get("identity_tenant_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def role_arn(self) -> typing.Optional[builtins.str]:
        '''RoleArn sets the AWS RoleArn to be used.

        Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentity#roleArn
        '''
        result = self._values.get("role_arn")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManagerPodIdentity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner"
)
class TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner(enum.Enum):
    '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

    Mutually exclusive with roleArn

    :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner
    '''

    KEDA = "KEDA"
    '''keda.'''
    WORKLOAD = "WORKLOAD"
    '''workload.'''


@jsii.enum(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider"
)
class TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider(enum.Enum):
    '''PodIdentityProvider contains the list of providers.

    :schema: TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider
    '''

    AZURE_HYPHEN_WORKLOAD = "AZURE_HYPHEN_WORKLOAD"
    '''azure-workload.'''
    GCP = "GCP"
    '''gcp.'''
    AWS = "AWS"
    '''aws.'''
    AWS_HYPHEN_EKS = "AWS_HYPHEN_EKS"
    '''aws-eks.'''
    NONE = "NONE"
    '''none.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecGcpSecretManagerSecrets",
    jsii_struct_bases=[],
    name_mapping={"id": "id", "parameter": "parameter", "version": "version"},
)
class TriggerAuthenticationSpecGcpSecretManagerSecrets:
    def __init__(
        self,
        *,
        id: builtins.str,
        parameter: builtins.str,
        version: typing.Optional[builtins.str] = None,
    ) -> None:
        '''
        :param id: 
        :param parameter: 
        :param version: 

        :schema: TriggerAuthenticationSpecGcpSecretManagerSecrets
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__db894643f558595120c0581cd637e4af43eaa7a1126f12db233403b47a94326f)
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
            check_type(argname="argument version", value=version, expected_type=type_hints["version"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "id": id,
            "parameter": parameter,
        }
        if version is not None:
            self._values["version"] = version

    @builtins.property
    def id(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerSecrets#id
        '''
        result = self._values.get("id")
        assert result is not None, "Required property 'id' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerSecrets#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def version(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecGcpSecretManagerSecrets#version
        '''
        result = self._values.get("version")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecGcpSecretManagerSecrets(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecHashiCorpVault",
    jsii_struct_bases=[],
    name_mapping={
        "address": "address",
        "authentication": "authentication",
        "secrets": "secrets",
        "credential": "credential",
        "mount": "mount",
        "namespace": "namespace",
        "role": "role",
    },
)
class TriggerAuthenticationSpecHashiCorpVault:
    def __init__(
        self,
        *,
        address: builtins.str,
        authentication: "TriggerAuthenticationSpecHashiCorpVaultAuthentication",
        secrets: typing.Sequence[typing.Union["TriggerAuthenticationSpecHashiCorpVaultSecrets", typing.Dict[builtins.str, typing.Any]]],
        credential: typing.Optional[typing.Union["TriggerAuthenticationSpecHashiCorpVaultCredential", typing.Dict[builtins.str, typing.Any]]] = None,
        mount: typing.Optional[builtins.str] = None,
        namespace: typing.Optional[builtins.str] = None,
        role: typing.Optional[builtins.str] = None,
    ) -> None:
        '''HashiCorpVault is used to authenticate using Hashicorp Vault.

        :param address: 
        :param authentication: VaultAuthentication contains the list of Hashicorp Vault authentication methods.
        :param secrets: 
        :param credential: Credential defines the Hashicorp Vault credentials depending on the authentication method.
        :param mount: 
        :param namespace: 
        :param role: 

        :schema: TriggerAuthenticationSpecHashiCorpVault
        '''
        if isinstance(credential, dict):
            credential = TriggerAuthenticationSpecHashiCorpVaultCredential(**credential)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f83eb927d5c2e6a60f48fb0625b83f9d3a6453adb084765359b3ca5f6d1f8c8d)
            check_type(argname="argument address", value=address, expected_type=type_hints["address"])
            check_type(argname="argument authentication", value=authentication, expected_type=type_hints["authentication"])
            check_type(argname="argument secrets", value=secrets, expected_type=type_hints["secrets"])
            check_type(argname="argument credential", value=credential, expected_type=type_hints["credential"])
            check_type(argname="argument mount", value=mount, expected_type=type_hints["mount"])
            check_type(argname="argument namespace", value=namespace, expected_type=type_hints["namespace"])
            check_type(argname="argument role", value=role, expected_type=type_hints["role"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "address": address,
            "authentication": authentication,
            "secrets": secrets,
        }
        if credential is not None:
            self._values["credential"] = credential
        if mount is not None:
            self._values["mount"] = mount
        if namespace is not None:
            self._values["namespace"] = namespace
        if role is not None:
            self._values["role"] = role

    @builtins.property
    def address(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVault#address
        '''
        result = self._values.get("address")
        assert result is not None, "Required property 'address' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def authentication(self) -> "TriggerAuthenticationSpecHashiCorpVaultAuthentication":
        '''VaultAuthentication contains the list of Hashicorp Vault authentication methods.

        :schema: TriggerAuthenticationSpecHashiCorpVault#authentication
        '''
        result = self._values.get("authentication")
        assert result is not None, "Required property 'authentication' is missing"
        return typing.cast("TriggerAuthenticationSpecHashiCorpVaultAuthentication", result)

    @builtins.property
    def secrets(self) -> typing.List["TriggerAuthenticationSpecHashiCorpVaultSecrets"]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVault#secrets
        '''
        result = self._values.get("secrets")
        assert result is not None, "Required property 'secrets' is missing"
        return typing.cast(typing.List["TriggerAuthenticationSpecHashiCorpVaultSecrets"], result)

    @builtins.property
    def credential(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecHashiCorpVaultCredential"]:
        '''Credential defines the Hashicorp Vault credentials depending on the authentication method.

        :schema: TriggerAuthenticationSpecHashiCorpVault#credential
        '''
        result = self._values.get("credential")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecHashiCorpVaultCredential"], result)

    @builtins.property
    def mount(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVault#mount
        '''
        result = self._values.get("mount")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def namespace(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVault#namespace
        '''
        result = self._values.get("namespace")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def role(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVault#role
        '''
        result = self._values.get("role")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecHashiCorpVault(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.TriggerAuthenticationSpecHashiCorpVaultAuthentication")
class TriggerAuthenticationSpecHashiCorpVaultAuthentication(enum.Enum):
    '''VaultAuthentication contains the list of Hashicorp Vault authentication methods.

    :schema: TriggerAuthenticationSpecHashiCorpVaultAuthentication
    '''

    TOKEN = "TOKEN"
    '''token.'''
    KUBERNETES = "KUBERNETES"
    '''kubernetes.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecHashiCorpVaultCredential",
    jsii_struct_bases=[],
    name_mapping={
        "service_account": "serviceAccount",
        "service_account_name": "serviceAccountName",
        "token": "token",
    },
)
class TriggerAuthenticationSpecHashiCorpVaultCredential:
    def __init__(
        self,
        *,
        service_account: typing.Optional[builtins.str] = None,
        service_account_name: typing.Optional[builtins.str] = None,
        token: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Credential defines the Hashicorp Vault credentials depending on the authentication method.

        :param service_account: 
        :param service_account_name: 
        :param token: 

        :schema: TriggerAuthenticationSpecHashiCorpVaultCredential
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6026711cb42bd825667aa0150a79ccc0a0b4d4f08dec8f2165ca5625780414be)
            check_type(argname="argument service_account", value=service_account, expected_type=type_hints["service_account"])
            check_type(argname="argument service_account_name", value=service_account_name, expected_type=type_hints["service_account_name"])
            check_type(argname="argument token", value=token, expected_type=type_hints["token"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if service_account is not None:
            self._values["service_account"] = service_account
        if service_account_name is not None:
            self._values["service_account_name"] = service_account_name
        if token is not None:
            self._values["token"] = token

    @builtins.property
    def service_account(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultCredential#serviceAccount
        '''
        result = self._values.get("service_account")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def service_account_name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultCredential#serviceAccountName
        '''
        result = self._values.get("service_account_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def token(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultCredential#token
        '''
        result = self._values.get("token")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecHashiCorpVaultCredential(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecHashiCorpVaultSecrets",
    jsii_struct_bases=[],
    name_mapping={
        "key": "key",
        "parameter": "parameter",
        "path": "path",
        "pki_data": "pkiData",
        "type": "type",
    },
)
class TriggerAuthenticationSpecHashiCorpVaultSecrets:
    def __init__(
        self,
        *,
        key: builtins.str,
        parameter: builtins.str,
        path: builtins.str,
        pki_data: typing.Optional[typing.Union["TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData", typing.Dict[builtins.str, typing.Any]]] = None,
        type: typing.Optional["TriggerAuthenticationSpecHashiCorpVaultSecretsType"] = None,
    ) -> None:
        '''VaultSecret defines the mapping between the path of the secret in Vault to the parameter.

        :param key: 
        :param parameter: 
        :param path: 
        :param pki_data: 
        :param type: VaultSecretType defines the type of vault secret.

        :schema: TriggerAuthenticationSpecHashiCorpVaultSecrets
        '''
        if isinstance(pki_data, dict):
            pki_data = TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData(**pki_data)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b2e3d26222b6fcbd36162533f0568ea0dc45a0b721a7df36b962554bc2a009b7)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
            check_type(argname="argument path", value=path, expected_type=type_hints["path"])
            check_type(argname="argument pki_data", value=pki_data, expected_type=type_hints["pki_data"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "parameter": parameter,
            "path": path,
        }
        if pki_data is not None:
            self._values["pki_data"] = pki_data
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecrets#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecrets#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def path(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecrets#path
        '''
        result = self._values.get("path")
        assert result is not None, "Required property 'path' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def pki_data(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData"]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecrets#pkiData
        '''
        result = self._values.get("pki_data")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData"], result)

    @builtins.property
    def type(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecHashiCorpVaultSecretsType"]:
        '''VaultSecretType defines the type of vault secret.

        :schema: TriggerAuthenticationSpecHashiCorpVaultSecrets#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecHashiCorpVaultSecretsType"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecHashiCorpVaultSecrets(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData",
    jsii_struct_bases=[],
    name_mapping={
        "alt_names": "altNames",
        "common_name": "commonName",
        "format": "format",
        "ip_sans": "ipSans",
        "other_sans": "otherSans",
        "ttl": "ttl",
        "uri_sans": "uriSans",
    },
)
class TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData:
    def __init__(
        self,
        *,
        alt_names: typing.Optional[builtins.str] = None,
        common_name: typing.Optional[builtins.str] = None,
        format: typing.Optional[builtins.str] = None,
        ip_sans: typing.Optional[builtins.str] = None,
        other_sans: typing.Optional[builtins.str] = None,
        ttl: typing.Optional[builtins.str] = None,
        uri_sans: typing.Optional[builtins.str] = None,
    ) -> None:
        '''
        :param alt_names: 
        :param common_name: 
        :param format: 
        :param ip_sans: 
        :param other_sans: 
        :param ttl: 
        :param uri_sans: 

        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6e50642f799f08de42ba60484826b10afeda51c539c13815931704412f193466)
            check_type(argname="argument alt_names", value=alt_names, expected_type=type_hints["alt_names"])
            check_type(argname="argument common_name", value=common_name, expected_type=type_hints["common_name"])
            check_type(argname="argument format", value=format, expected_type=type_hints["format"])
            check_type(argname="argument ip_sans", value=ip_sans, expected_type=type_hints["ip_sans"])
            check_type(argname="argument other_sans", value=other_sans, expected_type=type_hints["other_sans"])
            check_type(argname="argument ttl", value=ttl, expected_type=type_hints["ttl"])
            check_type(argname="argument uri_sans", value=uri_sans, expected_type=type_hints["uri_sans"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if alt_names is not None:
            self._values["alt_names"] = alt_names
        if common_name is not None:
            self._values["common_name"] = common_name
        if format is not None:
            self._values["format"] = format
        if ip_sans is not None:
            self._values["ip_sans"] = ip_sans
        if other_sans is not None:
            self._values["other_sans"] = other_sans
        if ttl is not None:
            self._values["ttl"] = ttl
        if uri_sans is not None:
            self._values["uri_sans"] = uri_sans

    @builtins.property
    def alt_names(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#altNames
        '''
        result = self._values.get("alt_names")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def common_name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#commonName
        '''
        result = self._values.get("common_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def format(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#format
        '''
        result = self._values.get("format")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def ip_sans(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#ipSans
        '''
        result = self._values.get("ip_sans")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def other_sans(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#otherSans
        '''
        result = self._values.get("other_sans")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def ttl(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#ttl
        '''
        result = self._values.get("ttl")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def uri_sans(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData#uriSans
        '''
        result = self._values.get("uri_sans")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.TriggerAuthenticationSpecHashiCorpVaultSecretsType")
class TriggerAuthenticationSpecHashiCorpVaultSecretsType(enum.Enum):
    '''VaultSecretType defines the type of vault secret.

    :schema: TriggerAuthenticationSpecHashiCorpVaultSecretsType
    '''

    SECRET_V2 = "SECRET_V2"
    '''secretV2.'''
    SECRET = "SECRET"
    '''secret.'''
    PKI = "PKI"
    '''pki.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecOauth2",
    jsii_struct_bases=[],
    name_mapping={
        "client_id": "clientId",
        "token_url": "tokenUrl",
        "type": "type",
        "client_secret": "clientSecret",
        "scopes": "scopes",
        "token_url_params": "tokenUrlParams",
    },
)
class TriggerAuthenticationSpecOauth2:
    def __init__(
        self,
        *,
        client_id: builtins.str,
        token_url: builtins.str,
        type: "TriggerAuthenticationSpecOauth2Type",
        client_secret: typing.Optional[typing.Union["TriggerAuthenticationSpecOauth2ClientSecret", typing.Dict[builtins.str, typing.Any]]] = None,
        scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
        token_url_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''
        :param client_id: 
        :param token_url: 
        :param type: 
        :param client_secret: 
        :param scopes: 
        :param token_url_params: 

        :schema: TriggerAuthenticationSpecOauth2
        '''
        if isinstance(client_secret, dict):
            client_secret = TriggerAuthenticationSpecOauth2ClientSecret(**client_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d241a50dc19e09c74655950589813ee70af43516d33aa280f6b4edd3bc21faeb)
            check_type(argname="argument client_id", value=client_id, expected_type=type_hints["client_id"])
            check_type(argname="argument token_url", value=token_url, expected_type=type_hints["token_url"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument client_secret", value=client_secret, expected_type=type_hints["client_secret"])
            check_type(argname="argument scopes", value=scopes, expected_type=type_hints["scopes"])
            check_type(argname="argument token_url_params", value=token_url_params, expected_type=type_hints["token_url_params"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "client_id": client_id,
            "token_url": token_url,
            "type": type,
        }
        if client_secret is not None:
            self._values["client_secret"] = client_secret
        if scopes is not None:
            self._values["scopes"] = scopes
        if token_url_params is not None:
            self._values["token_url_params"] = token_url_params

    @builtins.property
    def client_id(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecOauth2#clientId
        '''
        result = self._values.get("client_id")
        assert result is not None, "Required property 'client_id' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def token_url(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecOauth2#tokenUrl
        '''
        result = self._values.get("token_url")
        assert result is not None, "Required property 'token_url' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def type(self) -> "TriggerAuthenticationSpecOauth2Type":
        '''
        :schema: TriggerAuthenticationSpecOauth2#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast("TriggerAuthenticationSpecOauth2Type", result)

    @builtins.property
    def client_secret(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecOauth2ClientSecret"]:
        '''
        :schema: TriggerAuthenticationSpecOauth2#clientSecret
        '''
        result = self._values.get("client_secret")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecOauth2ClientSecret"], result)

    @builtins.property
    def scopes(self) -> typing.Optional[typing.List[builtins.str]]:
        '''
        :schema: TriggerAuthenticationSpecOauth2#scopes
        '''
        result = self._values.get("scopes")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def token_url_params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''
        :schema: TriggerAuthenticationSpecOauth2#tokenUrlParams
        '''
        result = self._values.get("token_url_params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecOauth2(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecOauth2ClientSecret",
    jsii_struct_bases=[],
    name_mapping={"value_from": "valueFrom"},
)
class TriggerAuthenticationSpecOauth2ClientSecret:
    def __init__(
        self,
        *,
        value_from: typing.Union["TriggerAuthenticationSpecOauth2ClientSecretValueFrom", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param value_from: 

        :schema: TriggerAuthenticationSpecOauth2ClientSecret
        '''
        if isinstance(value_from, dict):
            value_from = TriggerAuthenticationSpecOauth2ClientSecretValueFrom(**value_from)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fea452ab597a2bfa2b359a301eee22569bd36d1265bd1c619dec2c1866fdec2c)
            check_type(argname="argument value_from", value=value_from, expected_type=type_hints["value_from"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value_from": value_from,
        }

    @builtins.property
    def value_from(self) -> "TriggerAuthenticationSpecOauth2ClientSecretValueFrom":
        '''
        :schema: TriggerAuthenticationSpecOauth2ClientSecret#valueFrom
        '''
        result = self._values.get("value_from")
        assert result is not None, "Required property 'value_from' is missing"
        return typing.cast("TriggerAuthenticationSpecOauth2ClientSecretValueFrom", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecOauth2ClientSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecOauth2ClientSecretValueFrom",
    jsii_struct_bases=[],
    name_mapping={"secret_key_ref": "secretKeyRef"},
)
class TriggerAuthenticationSpecOauth2ClientSecretValueFrom:
    def __init__(
        self,
        *,
        secret_key_ref: typing.Union["TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''
        :param secret_key_ref: 

        :schema: TriggerAuthenticationSpecOauth2ClientSecretValueFrom
        '''
        if isinstance(secret_key_ref, dict):
            secret_key_ref = TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef(**secret_key_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bbe0947c3e2d2ff5a29753e21a053ba02fa6af278dadb45711915ef11ed02d08)
            check_type(argname="argument secret_key_ref", value=secret_key_ref, expected_type=type_hints["secret_key_ref"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "secret_key_ref": secret_key_ref,
        }

    @builtins.property
    def secret_key_ref(
        self,
    ) -> "TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef":
        '''
        :schema: TriggerAuthenticationSpecOauth2ClientSecretValueFrom#secretKeyRef
        '''
        result = self._values.get("secret_key_ref")
        assert result is not None, "Required property 'secret_key_ref' is missing"
        return typing.cast("TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecOauth2ClientSecretValueFrom(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name"},
)
class TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef:
    def __init__(self, *, key: builtins.str, name: builtins.str) -> None:
        '''
        :param key: 
        :param name: 

        :schema: TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9c75dfb9f1d0d74c8a2daeb09310cb408cfae557751e7ed5c9dc3a5566d350fb)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.TriggerAuthenticationSpecOauth2Type")
class TriggerAuthenticationSpecOauth2Type(enum.Enum):
    '''
    :schema: TriggerAuthenticationSpecOauth2Type
    '''

    CLIENT_CREDENTIALS = "CLIENT_CREDENTIALS"
    '''clientCredentials.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecPodIdentity",
    jsii_struct_bases=[],
    name_mapping={
        "provider": "provider",
        "external_id": "externalId",
        "identity_authority_host": "identityAuthorityHost",
        "identity_id": "identityId",
        "identity_owner": "identityOwner",
        "identity_tenant_id": "identityTenantId",
        "role_arn": "roleArn",
    },
)
class TriggerAuthenticationSpecPodIdentity:
    def __init__(
        self,
        *,
        provider: "TriggerAuthenticationSpecPodIdentityProvider",
        external_id: typing.Optional[builtins.str] = None,
        identity_authority_host: typing.Optional[builtins.str] = None,
        identity_id: typing.Optional[builtins.str] = None,
        identity_owner: typing.Optional["TriggerAuthenticationSpecPodIdentityIdentityOwner"] = None,
        identity_tenant_id: typing.Optional[builtins.str] = None,
        role_arn: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AuthPodIdentity allows users to select the platform native identity mechanism.

        :param provider: PodIdentityProvider contains the list of providers.
        :param external_id: ExternalID sets the External ID to be used when assuming an identity. This is only applicable when using AWS pod identity with a RoleArn.
        :param identity_authority_host: Set identityAuthorityHost to override the default Azure authority host. If this is set, then the IdentityTenantID must also be set
        :param identity_id: 
        :param identity_owner: IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload. Mutually exclusive with roleArn
        :param identity_tenant_id: Set identityTenantId to override the default Azure tenant id. If this is set, then the IdentityID must also be set
        :param role_arn: RoleArn sets the AWS RoleArn to be used. Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecPodIdentity
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ae7c6bd30247f45ee55e6ef6a85718d037ff12dc58b6c0565c03a43b3e105f82)
            check_type(argname="argument provider", value=provider, expected_type=type_hints["provider"])
            check_type(argname="argument external_id", value=external_id, expected_type=type_hints["external_id"])
            check_type(argname="argument identity_authority_host", value=identity_authority_host, expected_type=type_hints["identity_authority_host"])
            check_type(argname="argument identity_id", value=identity_id, expected_type=type_hints["identity_id"])
            check_type(argname="argument identity_owner", value=identity_owner, expected_type=type_hints["identity_owner"])
            check_type(argname="argument identity_tenant_id", value=identity_tenant_id, expected_type=type_hints["identity_tenant_id"])
            check_type(argname="argument role_arn", value=role_arn, expected_type=type_hints["role_arn"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "provider": provider,
        }
        if external_id is not None:
            self._values["external_id"] = external_id
        if identity_authority_host is not None:
            self._values["identity_authority_host"] = identity_authority_host
        if identity_id is not None:
            self._values["identity_id"] = identity_id
        if identity_owner is not None:
            self._values["identity_owner"] = identity_owner
        if identity_tenant_id is not None:
            self._values["identity_tenant_id"] = identity_tenant_id
        if role_arn is not None:
            self._values["role_arn"] = role_arn

    @builtins.property
    def provider(self) -> "TriggerAuthenticationSpecPodIdentityProvider":
        '''PodIdentityProvider contains the list of providers.

        :schema: TriggerAuthenticationSpecPodIdentity#provider
        '''
        result = self._values.get("provider")
        assert result is not None, "Required property 'provider' is missing"
        return typing.cast("TriggerAuthenticationSpecPodIdentityProvider", result)

    @builtins.property
    def external_id(self) -> typing.Optional[builtins.str]:
        '''ExternalID sets the External ID to be used when assuming an identity.

        This is only applicable when using AWS pod identity with a RoleArn.

        :schema: TriggerAuthenticationSpecPodIdentity#externalID
        '''
        result = self._values.get("external_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_authority_host(self) -> typing.Optional[builtins.str]:
        '''Set identityAuthorityHost to override the default Azure authority host.

        If this is set, then the IdentityTenantID must also be set

        :schema: TriggerAuthenticationSpecPodIdentity#identityAuthorityHost
        '''
        result = self._values.get("identity_authority_host")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_id(self) -> typing.Optional[builtins.str]:
        '''
        :schema: TriggerAuthenticationSpecPodIdentity#identityId
        '''
        result = self._values.get("identity_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def identity_owner(
        self,
    ) -> typing.Optional["TriggerAuthenticationSpecPodIdentityIdentityOwner"]:
        '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

        Mutually exclusive with roleArn

        :schema: TriggerAuthenticationSpecPodIdentity#identityOwner
        '''
        result = self._values.get("identity_owner")
        return typing.cast(typing.Optional["TriggerAuthenticationSpecPodIdentityIdentityOwner"], result)

    @builtins.property
    def identity_tenant_id(self) -> typing.Optional[builtins.str]:
        '''Set identityTenantId to override the default Azure tenant id.

        If this is set, then the IdentityID must also be set

        :schema: TriggerAuthenticationSpecPodIdentity#identityTenantId
        '''
        result = self._values.get("identity_tenant_id")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def role_arn(self) -> typing.Optional[builtins.str]:
        '''RoleArn sets the AWS RoleArn to be used.

        Mutually exclusive with IdentityOwner

        :schema: TriggerAuthenticationSpecPodIdentity#roleArn
        '''
        result = self._values.get("role_arn")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecPodIdentity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="shkeda.TriggerAuthenticationSpecPodIdentityIdentityOwner")
class TriggerAuthenticationSpecPodIdentityIdentityOwner(enum.Enum):
    '''IdentityOwner configures which identity has to be used during auto discovery, keda or the scaled workload.

    Mutually exclusive with roleArn

    :schema: TriggerAuthenticationSpecPodIdentityIdentityOwner
    '''

    KEDA = "KEDA"
    '''keda.'''
    WORKLOAD = "WORKLOAD"
    '''workload.'''


@jsii.enum(jsii_type="shkeda.TriggerAuthenticationSpecPodIdentityProvider")
class TriggerAuthenticationSpecPodIdentityProvider(enum.Enum):
    '''PodIdentityProvider contains the list of providers.

    :schema: TriggerAuthenticationSpecPodIdentityProvider
    '''

    AZURE_HYPHEN_WORKLOAD = "AZURE_HYPHEN_WORKLOAD"
    '''azure-workload.'''
    GCP = "GCP"
    '''gcp.'''
    AWS = "AWS"
    '''aws.'''
    AWS_HYPHEN_EKS = "AWS_HYPHEN_EKS"
    '''aws-eks.'''
    NONE = "NONE"
    '''none.'''


@jsii.data_type(
    jsii_type="shkeda.TriggerAuthenticationSpecSecretTargetRef",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "parameter": "parameter"},
)
class TriggerAuthenticationSpecSecretTargetRef:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: builtins.str,
        parameter: builtins.str,
    ) -> None:
        '''AuthSecretTargetRef is used to authenticate using a reference to a secret.

        :param key: 
        :param name: 
        :param parameter: 

        :schema: TriggerAuthenticationSpecSecretTargetRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__43484d38f07be70f7a9795e3263c1b2819d59cbf75ee27e5103a10931a0130e2)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument parameter", value=parameter, expected_type=type_hints["parameter"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "name": name,
            "parameter": parameter,
        }

    @builtins.property
    def key(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecSecretTargetRef#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecSecretTargetRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def parameter(self) -> builtins.str:
        '''
        :schema: TriggerAuthenticationSpecSecretTargetRef#parameter
        '''
        result = self._values.get("parameter")
        assert result is not None, "Required property 'parameter' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TriggerAuthenticationSpecSecretTargetRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "ScaledObject",
    "ScaledObjectProps",
    "ScaledObjectSpec",
    "ScaledObjectSpecAdvanced",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance",
    "ScaledObjectSpecAdvancedScalingModifiers",
    "ScaledObjectSpecAdvancedScalingModifiersMetricType",
    "ScaledObjectSpecFallback",
    "ScaledObjectSpecFallbackBehavior",
    "ScaledObjectSpecScaleTargetRef",
    "ScaledObjectSpecTriggers",
    "ScaledObjectSpecTriggersAuthenticationRef",
    "ScaledObjectSpecTriggersAuthenticationRefKind",
    "TriggerAuthentication",
    "TriggerAuthenticationProps",
    "TriggerAuthenticationSpec",
    "TriggerAuthenticationSpecAwsSecretManager",
    "TriggerAuthenticationSpecAwsSecretManagerCredentials",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom",
    "TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef",
    "TriggerAuthenticationSpecAwsSecretManagerPodIdentity",
    "TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner",
    "TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider",
    "TriggerAuthenticationSpecAwsSecretManagerSecrets",
    "TriggerAuthenticationSpecAzureKeyVault",
    "TriggerAuthenticationSpecAzureKeyVaultCloud",
    "TriggerAuthenticationSpecAzureKeyVaultCredentials",
    "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret",
    "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom",
    "TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef",
    "TriggerAuthenticationSpecAzureKeyVaultPodIdentity",
    "TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner",
    "TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider",
    "TriggerAuthenticationSpecAzureKeyVaultSecrets",
    "TriggerAuthenticationSpecBoundServiceAccountToken",
    "TriggerAuthenticationSpecConfigMapTargetRef",
    "TriggerAuthenticationSpecEnv",
    "TriggerAuthenticationSpecGcpSecretManager",
    "TriggerAuthenticationSpecGcpSecretManagerCredentials",
    "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret",
    "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom",
    "TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef",
    "TriggerAuthenticationSpecGcpSecretManagerPodIdentity",
    "TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner",
    "TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider",
    "TriggerAuthenticationSpecGcpSecretManagerSecrets",
    "TriggerAuthenticationSpecHashiCorpVault",
    "TriggerAuthenticationSpecHashiCorpVaultAuthentication",
    "TriggerAuthenticationSpecHashiCorpVaultCredential",
    "TriggerAuthenticationSpecHashiCorpVaultSecrets",
    "TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData",
    "TriggerAuthenticationSpecHashiCorpVaultSecretsType",
    "TriggerAuthenticationSpecOauth2",
    "TriggerAuthenticationSpecOauth2ClientSecret",
    "TriggerAuthenticationSpecOauth2ClientSecretValueFrom",
    "TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef",
    "TriggerAuthenticationSpecOauth2Type",
    "TriggerAuthenticationSpecPodIdentity",
    "TriggerAuthenticationSpecPodIdentityIdentityOwner",
    "TriggerAuthenticationSpecPodIdentityProvider",
    "TriggerAuthenticationSpecSecretTargetRef",
]

publication.publish()

def _typecheckingstub__10e7bcb8841e08bf7615ef3354c9d1878943b1cebb7b799100ac90f48c9deb7d(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[ScaledObjectSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c07044806baefbc0c3eabce9598eccc57f043effb47ccc86ffd2f56305a3f4d1(
    *,
    spec: typing.Union[ScaledObjectSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__00109c9cbd824b4b997a2ad7594f3a736edde10ba30123b8768b2a198a03ee3f(
    *,
    scale_target_ref: typing.Union[ScaledObjectSpecScaleTargetRef, typing.Dict[builtins.str, typing.Any]],
    triggers: typing.Sequence[typing.Union[ScaledObjectSpecTriggers, typing.Dict[builtins.str, typing.Any]]],
    advanced: typing.Optional[typing.Union[ScaledObjectSpecAdvanced, typing.Dict[builtins.str, typing.Any]]] = None,
    cooldown_period: typing.Optional[jsii.Number] = None,
    fallback: typing.Optional[typing.Union[ScaledObjectSpecFallback, typing.Dict[builtins.str, typing.Any]]] = None,
    idle_replica_count: typing.Optional[jsii.Number] = None,
    initial_cooldown_period: typing.Optional[jsii.Number] = None,
    max_replica_count: typing.Optional[jsii.Number] = None,
    min_replica_count: typing.Optional[jsii.Number] = None,
    polling_interval: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b1518948ee266852eae7eb8274e2f78b6f62259f23eb27c223ec2a536926f45c(
    *,
    horizontal_pod_autoscaler_config: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    restore_to_original_replica_count: typing.Optional[builtins.bool] = None,
    scaling_modifiers: typing.Optional[typing.Union[ScaledObjectSpecAdvancedScalingModifiers, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ea56eb0420458a4e4a5bdf5d9b16346da07e2e32cbb0a4135a8baabb81b30434(
    *,
    behavior: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior, typing.Dict[builtins.str, typing.Any]]] = None,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__23dc88d2baea8b8740e1c2397e854510a95fb1fb178c9e9b07c5755cedf91442(
    *,
    scale_down: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown, typing.Dict[builtins.str, typing.Any]]] = None,
    scale_up: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1f2cb3b3e1213c4b0cf2bfd3f2b2283beeb9e13b979507abe367e4a89732f405(
    *,
    policies: typing.Optional[typing.Sequence[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies, typing.Dict[builtins.str, typing.Any]]]] = None,
    select_policy: typing.Optional[builtins.str] = None,
    stabilization_window_seconds: typing.Optional[jsii.Number] = None,
    tolerance: typing.Optional[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e00ba43eada0da0ca15fb38cd606c8a00c52483e1fdc1efc58bb17305e0ca99f(
    *,
    period_seconds: jsii.Number,
    type: builtins.str,
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0bcb6a4779d9801ffbac2176070272fe7c58a006f07909961c4631818a5826f0(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fd6a5eb679b114af8f32bfcb98cfea9226925c8856237f362498c58a0144ebdf(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__10ab468e00447e70f12c26d5b301d3a746facc8cf9b660f68bfb506d061aeaf9(
    *,
    policies: typing.Optional[typing.Sequence[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies, typing.Dict[builtins.str, typing.Any]]]] = None,
    select_policy: typing.Optional[builtins.str] = None,
    stabilization_window_seconds: typing.Optional[jsii.Number] = None,
    tolerance: typing.Optional[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__84c67bc89f41f1102c3ce3aa4236014302fdfb2f6b7a7fd30d8486e67b248d51(
    *,
    period_seconds: jsii.Number,
    type: builtins.str,
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c73e06507fad41a73c36740003d72aa3ffe7a57ac6c386870d3c03d713b1a2b0(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b7e350593daeb947b6767eba8810bdbf3bb48237dd1523555aad0b5bbafaeceb(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a466a57077932754dff23f6228497f8439d631e11458209cf938b618ff5d2c1a(
    *,
    activation_target: typing.Optional[builtins.str] = None,
    formula: typing.Optional[builtins.str] = None,
    metric_type: typing.Optional[ScaledObjectSpecAdvancedScalingModifiersMetricType] = None,
    target: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__438e9963cde5f8326aefcd4de195a96a351f575e6e4bdeb014ff01f71b90e88a(
    *,
    failure_threshold: jsii.Number,
    replicas: jsii.Number,
    behavior: typing.Optional[ScaledObjectSpecFallbackBehavior] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0313a98dfa318d07fb1beca00a6a6c41d44e549ec9d100a521dbc918cf7ababd(
    *,
    name: builtins.str,
    api_version: typing.Optional[builtins.str] = None,
    env_source_container_name: typing.Optional[builtins.str] = None,
    kind: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e1ed1e5eb614425b25057d35aef0f8671f1664ae82ebc2380111bab401803bb7(
    *,
    metadata: typing.Mapping[builtins.str, builtins.str],
    type: builtins.str,
    authentication_ref: typing.Optional[typing.Union[ScaledObjectSpecTriggersAuthenticationRef, typing.Dict[builtins.str, typing.Any]]] = None,
    metric_type: typing.Optional[builtins.str] = None,
    name: typing.Optional[builtins.str] = None,
    use_cached_metrics: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7286b6855e1ed389150157dede8f7dd965fc5c6b4460311ba41375fd962f0b35(
    *,
    name: builtins.str,
    kind: typing.Optional[ScaledObjectSpecTriggersAuthenticationRefKind] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__86d7879649cf54d114bad392cc365421a89ac3f2b9726ca2f70ecb0ea180a0a7(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[TriggerAuthenticationSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__82440656b398561186ee179821252a14717c53f097fcdf7e1edf9cb6130d2493(
    *,
    spec: typing.Union[TriggerAuthenticationSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b001ffa3b7d5b412dbd85daf71549d5c203993f9640700343075c3bef6b342ac(
    *,
    aws_secret_manager: typing.Optional[typing.Union[TriggerAuthenticationSpecAwsSecretManager, typing.Dict[builtins.str, typing.Any]]] = None,
    azure_key_vault: typing.Optional[typing.Union[TriggerAuthenticationSpecAzureKeyVault, typing.Dict[builtins.str, typing.Any]]] = None,
    bound_service_account_token: typing.Optional[typing.Sequence[typing.Union[TriggerAuthenticationSpecBoundServiceAccountToken, typing.Dict[builtins.str, typing.Any]]]] = None,
    config_map_target_ref: typing.Optional[typing.Sequence[typing.Union[TriggerAuthenticationSpecConfigMapTargetRef, typing.Dict[builtins.str, typing.Any]]]] = None,
    env: typing.Optional[typing.Sequence[typing.Union[TriggerAuthenticationSpecEnv, typing.Dict[builtins.str, typing.Any]]]] = None,
    file_path: typing.Optional[builtins.str] = None,
    gcp_secret_manager: typing.Optional[typing.Union[TriggerAuthenticationSpecGcpSecretManager, typing.Dict[builtins.str, typing.Any]]] = None,
    hashi_corp_vault: typing.Optional[typing.Union[TriggerAuthenticationSpecHashiCorpVault, typing.Dict[builtins.str, typing.Any]]] = None,
    oauth2: typing.Optional[typing.Union[TriggerAuthenticationSpecOauth2, typing.Dict[builtins.str, typing.Any]]] = None,
    pod_identity: typing.Optional[typing.Union[TriggerAuthenticationSpecPodIdentity, typing.Dict[builtins.str, typing.Any]]] = None,
    secret_target_ref: typing.Optional[typing.Sequence[typing.Union[TriggerAuthenticationSpecSecretTargetRef, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__834c73a56ee692ef8a23a0738f2657467f54239a6b7d12756f8674488bc12c90(
    *,
    secrets: typing.Sequence[typing.Union[TriggerAuthenticationSpecAwsSecretManagerSecrets, typing.Dict[builtins.str, typing.Any]]],
    credentials: typing.Optional[typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentials, typing.Dict[builtins.str, typing.Any]]] = None,
    pod_identity: typing.Optional[typing.Union[TriggerAuthenticationSpecAwsSecretManagerPodIdentity, typing.Dict[builtins.str, typing.Any]]] = None,
    region: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b8c571962afd7a858d759001255f3423430985bf1751d09b8acb8d83f5903c38(
    *,
    access_key: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKey, typing.Dict[builtins.str, typing.Any]],
    access_secret_key: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKey, typing.Dict[builtins.str, typing.Any]],
    access_token: typing.Optional[typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessToken, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fc3bce30061f30955b0ca63530d9886d28f7ead71134be4bb64cc5af08601827(
    *,
    value_from: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFrom, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3400a763ef2c45552de3bdedc2f326ddbe75c7dbada6517edb5e4bb472cc0884(
    *,
    secret_key_ref: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessKeyValueFromSecretKeyRef, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__342c7bce57b0d691cf897c02205bbe48922f97e1951185a678bb22dc23d2528d(
    *,
    key: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9cfb3f8a97caa825e997e5ff0a52a61f3eba4ca1b45cb40e75cb186e31fa2500(
    *,
    value_from: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFrom, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1ba40f610a12e83e6696888478372a18a83c6f9989f0a92d392b0b020432f99f(
    *,
    secret_key_ref: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessSecretKeyValueFromSecretKeyRef, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ac1c9ec4307def6e6ff3e61642311b3ca7cc641e05c20744541c1d04bf78785b(
    *,
    key: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ad7697f5ca793546f9d047f916dfc004895bada570ca3974f9a2ce0ffbea9bea(
    *,
    value_from: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFrom, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__feb4446c8320987215584dcdd9899abd49788e58f6bb38511d9edd51709635fc(
    *,
    secret_key_ref: typing.Union[TriggerAuthenticationSpecAwsSecretManagerCredentialsAccessTokenValueFromSecretKeyRef, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__70cfb296862f71c9be07755ece5d86863b30261ebcc6a00d3e86c24a2fa12776(
    *,
    key: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__62ac026f416bb3600e8098824e257c8299a1344ddb727645033057ba10443bf6(
    *,
    provider: TriggerAuthenticationSpecAwsSecretManagerPodIdentityProvider,
    external_id: typing.Optional[builtins.str] = None,
    identity_authority_host: typing.Optional[builtins.str] = None,
    identity_id: typing.Optional[builtins.str] = None,
    identity_owner: typing.Optional[TriggerAuthenticationSpecAwsSecretManagerPodIdentityIdentityOwner] = None,
    identity_tenant_id: typing.Optional[builtins.str] = None,
    role_arn: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a91352947b363e1929e2ea06e675435d301ea5035b63d63d05c0703873939305(
    *,
    name: builtins.str,
    parameter: builtins.str,
    secret_key: typing.Optional[builtins.str] = None,
    version_id: typing.Optional[builtins.str] = None,
    version_stage: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a60f94349d9a1b4fdcc35dea64dc30311325a4f6c5c5d139569163dab5ad7bb3(
    *,
    secrets: typing.Sequence[typing.Union[TriggerAuthenticationSpecAzureKeyVaultSecrets, typing.Dict[builtins.str, typing.Any]]],
    vault_uri: builtins.str,
    cloud: typing.Optional[typing.Union[TriggerAuthenticationSpecAzureKeyVaultCloud, typing.Dict[builtins.str, typing.Any]]] = None,
    credentials: typing.Optional[typing.Union[TriggerAuthenticationSpecAzureKeyVaultCredentials, typing.Dict[builtins.str, typing.Any]]] = None,
    pod_identity: typing.Optional[typing.Union[TriggerAuthenticationSpecAzureKeyVaultPodIdentity, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7018f3c3199d4d081b6019002fc68461e8fb1736ca98982a936001f50ab4922e(
    *,
    type: builtins.str,
    active_directory_endpoint: typing.Optional[builtins.str] = None,
    key_vault_resource_url: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ed228e650950b4b9d23fb6710a430e9f86bdf97feba86876fbfb97a98a5979fc(
    *,
    client_id: builtins.str,
    client_secret: typing.Union[TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecret, typing.Dict[builtins.str, typing.Any]],
    tenant_id: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8e5fb8a78124c1ab6533a8860a7bf12a08db5d31cbf7370fd242d6f6dccbec43(
    *,
    value_from: typing.Union[TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFrom, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c5e29f2d6f2b8b7bf801a90dd2ffd181160034a6f405f504a5f664fd226cb8d5(
    *,
    secret_key_ref: typing.Union[TriggerAuthenticationSpecAzureKeyVaultCredentialsClientSecretValueFromSecretKeyRef, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9778bdb524918617d185d2fe1758e8f31ad3794951ac58ed20d6fe218b8befe5(
    *,
    key: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__935b7f900712478289bd7ba71db402958da152ed591110e4c27cbf4f714b0d00(
    *,
    provider: TriggerAuthenticationSpecAzureKeyVaultPodIdentityProvider,
    external_id: typing.Optional[builtins.str] = None,
    identity_authority_host: typing.Optional[builtins.str] = None,
    identity_id: typing.Optional[builtins.str] = None,
    identity_owner: typing.Optional[TriggerAuthenticationSpecAzureKeyVaultPodIdentityIdentityOwner] = None,
    identity_tenant_id: typing.Optional[builtins.str] = None,
    role_arn: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ecfa15da4b4ca8fafcbf06509221417ef466357f3522b68a44f234a4c35dd61c(
    *,
    name: builtins.str,
    parameter: builtins.str,
    version: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f3c3aa1358c9a101e830470335a42d6937a03f642eb938f4f588fcba7e615de7(
    *,
    parameter: builtins.str,
    service_account_name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2d50196e1f6f9b331ad6424326d26f1932898b1b344e6e2d7278ff7dbbe77310(
    *,
    key: builtins.str,
    name: builtins.str,
    parameter: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__27fca8002f6122c8c41ab0a60fa900ef10c655b23d92b27a79578a01fc05fdf6(
    *,
    name: builtins.str,
    parameter: builtins.str,
    container_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__eb83b54de1713147485bb0e69284d75f61a79c8402ffe8029fdb93671eca3c3a(
    *,
    secrets: typing.Sequence[typing.Union[TriggerAuthenticationSpecGcpSecretManagerSecrets, typing.Dict[builtins.str, typing.Any]]],
    credentials: typing.Optional[typing.Union[TriggerAuthenticationSpecGcpSecretManagerCredentials, typing.Dict[builtins.str, typing.Any]]] = None,
    pod_identity: typing.Optional[typing.Union[TriggerAuthenticationSpecGcpSecretManagerPodIdentity, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__90d1e85341b3e4ad0fe1fe06b02db4ed824bf23e7ec38db8c676b523bb6ddd70(
    *,
    client_secret: typing.Union[TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecret, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0c716a91d75c3551e360281c4e5f05efd33a6374ad9c94f43a64f26932286bd7(
    *,
    value_from: typing.Union[TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFrom, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a85c6348eb38b7f21b6eef141c2854a7a57fedc0c7fdf4ecadc58b8f61e20a7e(
    *,
    secret_key_ref: typing.Union[TriggerAuthenticationSpecGcpSecretManagerCredentialsClientSecretValueFromSecretKeyRef, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__80348d9d103f8588e1ea7cd101806f0cfbe6639e2c8fbf7320bee0d87db09f6e(
    *,
    key: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c4b631e6cf8ebb03124aa853435c07802521d06d5715f9db4ff78c7cb4b03b57(
    *,
    provider: TriggerAuthenticationSpecGcpSecretManagerPodIdentityProvider,
    external_id: typing.Optional[builtins.str] = None,
    identity_authority_host: typing.Optional[builtins.str] = None,
    identity_id: typing.Optional[builtins.str] = None,
    identity_owner: typing.Optional[TriggerAuthenticationSpecGcpSecretManagerPodIdentityIdentityOwner] = None,
    identity_tenant_id: typing.Optional[builtins.str] = None,
    role_arn: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__db894643f558595120c0581cd637e4af43eaa7a1126f12db233403b47a94326f(
    *,
    id: builtins.str,
    parameter: builtins.str,
    version: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f83eb927d5c2e6a60f48fb0625b83f9d3a6453adb084765359b3ca5f6d1f8c8d(
    *,
    address: builtins.str,
    authentication: TriggerAuthenticationSpecHashiCorpVaultAuthentication,
    secrets: typing.Sequence[typing.Union[TriggerAuthenticationSpecHashiCorpVaultSecrets, typing.Dict[builtins.str, typing.Any]]],
    credential: typing.Optional[typing.Union[TriggerAuthenticationSpecHashiCorpVaultCredential, typing.Dict[builtins.str, typing.Any]]] = None,
    mount: typing.Optional[builtins.str] = None,
    namespace: typing.Optional[builtins.str] = None,
    role: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6026711cb42bd825667aa0150a79ccc0a0b4d4f08dec8f2165ca5625780414be(
    *,
    service_account: typing.Optional[builtins.str] = None,
    service_account_name: typing.Optional[builtins.str] = None,
    token: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b2e3d26222b6fcbd36162533f0568ea0dc45a0b721a7df36b962554bc2a009b7(
    *,
    key: builtins.str,
    parameter: builtins.str,
    path: builtins.str,
    pki_data: typing.Optional[typing.Union[TriggerAuthenticationSpecHashiCorpVaultSecretsPkiData, typing.Dict[builtins.str, typing.Any]]] = None,
    type: typing.Optional[TriggerAuthenticationSpecHashiCorpVaultSecretsType] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6e50642f799f08de42ba60484826b10afeda51c539c13815931704412f193466(
    *,
    alt_names: typing.Optional[builtins.str] = None,
    common_name: typing.Optional[builtins.str] = None,
    format: typing.Optional[builtins.str] = None,
    ip_sans: typing.Optional[builtins.str] = None,
    other_sans: typing.Optional[builtins.str] = None,
    ttl: typing.Optional[builtins.str] = None,
    uri_sans: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d241a50dc19e09c74655950589813ee70af43516d33aa280f6b4edd3bc21faeb(
    *,
    client_id: builtins.str,
    token_url: builtins.str,
    type: TriggerAuthenticationSpecOauth2Type,
    client_secret: typing.Optional[typing.Union[TriggerAuthenticationSpecOauth2ClientSecret, typing.Dict[builtins.str, typing.Any]]] = None,
    scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
    token_url_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fea452ab597a2bfa2b359a301eee22569bd36d1265bd1c619dec2c1866fdec2c(
    *,
    value_from: typing.Union[TriggerAuthenticationSpecOauth2ClientSecretValueFrom, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bbe0947c3e2d2ff5a29753e21a053ba02fa6af278dadb45711915ef11ed02d08(
    *,
    secret_key_ref: typing.Union[TriggerAuthenticationSpecOauth2ClientSecretValueFromSecretKeyRef, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9c75dfb9f1d0d74c8a2daeb09310cb408cfae557751e7ed5c9dc3a5566d350fb(
    *,
    key: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ae7c6bd30247f45ee55e6ef6a85718d037ff12dc58b6c0565c03a43b3e105f82(
    *,
    provider: TriggerAuthenticationSpecPodIdentityProvider,
    external_id: typing.Optional[builtins.str] = None,
    identity_authority_host: typing.Optional[builtins.str] = None,
    identity_id: typing.Optional[builtins.str] = None,
    identity_owner: typing.Optional[TriggerAuthenticationSpecPodIdentityIdentityOwner] = None,
    identity_tenant_id: typing.Optional[builtins.str] = None,
    role_arn: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__43484d38f07be70f7a9795e3263c1b2819d59cbf75ee27e5103a10931a0130e2(
    *,
    key: builtins.str,
    name: builtins.str,
    parameter: builtins.str,
) -> None:
    """Type checking stubs"""
    pass
