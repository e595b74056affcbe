"""Read-only S3 access for one model's vLLM pods, through EKS Pod Identity.

One IAM role per model, trusted by `pods.eks.amazonaws.com`, allowed to read
only that model's prefix, and bound to the model's service account by a Pod
Identity association. Pods of other models (other service accounts) cannot
assume it, so one model's pods never read another's weights.

Needs the `eks-pod-identity-agent` add-on on the cluster (the cluster
construct installs it): without the agent the association exists but pods get
no credentials. This construct creates neither the add-on nor the service
account; the vLLM chart creates `naming.service_account_name(model_name)`.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

from fastload_constructs.core.naming import DEFAULT_NAMESPACE, service_account_name
from fastload_constructs.core.serving.cache_sharing import model_cache_prefix
from fastload_constructs.core.validation import check_dns_label, check_dns_subdomain, check_key_prefix
from fastload_constructs.infra.model_bucket import ModelBucket, ModelBucketGrants, model_uri
from fastload_constructs.infra.nag_findings import acknowledge, flatten
from fastload_constructs.infra.pod_identity_role import PodIdentityRole


class ModelReaderIdentity(Construct):
    """Pod Identity role + association that lets one model's pods read `prefix` in the model bucket.

    `bucket` is any `s3.IBucket` (a `ModelBucket` is unwrapped to its bucket
    and key); `kms_key` defaults to the bucket's `encryption_key`. For an
    imported bucket the grants go into the role's policy (same account);
    the endpoint lock is the bucket owner's (`ModelBucketLock`).

    Exposes `role`, `association`, `namespace`, `service_account`, `prefix`
    and `model_uri` (the `s3://` URI to pass to vLLM's `--model`). With
    `compile_cache_prefix` the role may also read and publish shared
    compile-cache archives under that prefix (and nowhere else).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        bucket: s3.IBucket | ModelBucket,
        prefix: str,
        model_name: str,
        namespace: str = DEFAULT_NAMESPACE,
        service_account: str | None = None,
        compile_cache_prefix: str | None = None,
        kms_key: kms.IKey | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        if isinstance(bucket, ModelBucket):
            kms_key = kms_key or bucket.kms_key
            bucket = bucket.bucket
        grants = ModelBucketGrants.from_bucket(bucket, kms_key)
        check_dns_label(model_name, "model_name")
        self.prefix = check_key_prefix(prefix)
        self.namespace = check_dns_label(namespace, "namespace")
        self.service_account = check_dns_subdomain(
            service_account if service_account is not None else service_account_name(model_name), "service_account"
        )
        self.identity = PodIdentityRole(
            self,
            "Identity",
            cluster=cluster,
            namespace=self.namespace,
            service_account=self.service_account,
            description=f"vLLM pods of {model_name} ({self.namespace}/{self.service_account}): "
            f"read-only access to {self.prefix}/ in the model bucket",
        )
        self.role = self.identity.role
        self.grant = grants.read_models(self.role, self.prefix)
        bucket_arn = flatten(Stack.of(self).resolve(bucket.bucket_arn))  # as cdk-nag prints it
        acknowledge(
            self.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/{self.prefix}/*]",
            "s3:GetObject on every object under this one model's prefix: the shard and config file names "
            "are not known when the stack is built, and the prefix is the narrowest scope that covers them",
        )
        # A shared compile cache: the pods also publish archives, but only under their own model's
        # folder of the cache prefix (<cache prefix>/<model name>/), never another model's.
        self.compile_cache_grant: iam.Grant | None = None
        self.compile_cache_prefix: str | None = None
        if compile_cache_prefix is not None:
            self.compile_cache_prefix = model_cache_prefix(compile_cache_prefix, model_name)
            self.compile_cache_grant = grants.compile_cache(self.role, self.compile_cache_prefix)
            acknowledge(
                self.role,
                f"AwsSolutions-IAM5[Resource::{bucket_arn}/{self.compile_cache_prefix}/*]",
                "get, put and delete on this model's compile-cache archives under its own folder of the cache "
                "prefix: archive names are configuration hashes known only at run time, and the model's folder "
                "is the narrowest scope",
            )
        assert self.identity.association is not None
        # Pods that start as soon as the association exists must already be able to read: the
        # association depends on the role construct, which holds the grants' default policy.
        self.association = self.identity.association
        self.bucket = bucket
        self.model_uri = model_uri(bucket, self.prefix)

    @property
    def association_arn(self) -> str:
        return self.association.attr_association_arn


__all__ = ["ModelReaderIdentity"]
