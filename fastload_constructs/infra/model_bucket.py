"""The S3 bucket model weights stream from, readable only through the VPC endpoint.

Inference pods read weights through the S3 gateway endpoint of
`FastloadNetwork`; the bucket policy refuses object reads and listings that
arrive any other way, so a leaked pod credential is useless outside the VPC.
The one exception is the *stager* principals: the people or pipelines that
upload models (from a workstation or CI, outside the VPC) must also read back
and list what they uploaded, so their ARNs are exempt from the endpoint lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from aws_cdk import (
    Annotations,
    CfnOutput,
    Duration,
    RemovalPolicy,
    Stack,
    Token,
)
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

from fastload_constructs.core.access.model_bucket import (
    KMS_READ_ACTIONS,
    KMS_STAGE_ACTIONS,
    TEMPORARY_OBJECT_DAYS,
    TEMPORARY_OBJECT_TAG,
    StatementSpec,
    check_key_region,
    compile_cache_statements,
    endpoint_lock_statements,
    kms_statement,
    read_models_statements,
    stage_models_statements,
)
from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_bucket_name, check_key_prefix
from fastload_constructs.infra.checkov_findings import skip_checks

StagerPrincipal = iam.IRole | iam.IUser

INCOMPLETE_UPLOAD_DAYS = 7
ACCESS_LOG_RETENTION_DAYS = 365
# A replaced or deleted access log is kept this long before it goes for good.
NONCURRENT_ACCESS_LOG_DAYS = 30
LOG_DELIVERY_BY_POLICY_FLAG = "@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"


class ModelBucket(Construct):
    """Versioned, encrypted, TLS-only S3 bucket for model weights, locked to one VPC endpoint.

    - Block public access, bucket-owner-enforced ownership, `enforce_ssl`, TLS >= 1.2.
    - SSE-S3 by default; with `kms_key`, SSE-KMS with an S3 Bucket Key (one KMS
      call per object and session instead of per request: streamers issue
      thousands of ranged GETs). The key must be in the bucket's region; an
      imported key's region is parsed from its ARN.
    - Versioning on; noncurrent versions expire after `noncurrent_version_expiration`;
      incomplete multipart uploads are aborted after 7 days.
    - Server access logs into `access_logs_bucket`, or into a bucket created
      here; `access_logs=False` opts out explicitly.
    - Removal policy RETAIN by default: weights are expensive to re-stage.
    - Bucket policy: deny every object read and write (`s3:GetObject*`,
      `s3:PutObject*`, `s3:DeleteObject*`, multipart) and every listing unless
      `aws:SourceVpce` is `vpc_endpoint`. A `stager_principals` member is exempt
      only under the prefixes `grant_stage_models` gave it (condition on
      `aws:PrincipalArn`); being listed grants nothing by itself.

    For a bucket you already have, skip this construct: `ModelBucketGrants`
    grants on any `s3.IBucket`, and `ModelBucketLock` adds (or prints) the
    endpoint lock and the TLS-only deny for that bucket's policy.
    Attributes: `bucket`, `kms_key`, `grants`, `lock`, `access_logs_bucket`.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc_endpoint: ec2.IVpcEndpoint,
        stager_principals: Sequence[StagerPrincipal] = (),
        kms_key: kms.IKey | None = None,
        bucket_name: str | None = None,
        access_logs: bool = True,
        access_logs_bucket: s3.IBucket | None = None,
        noncurrent_version_expiration: Duration = Duration.days(30),
        removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
    ) -> None:
        super().__init__(scope, construct_id)
        # Log delivery through a bucket policy, not ACLs, whatever the app's flags:
        # ACL delivery needs ObjectWriter ownership, which re-enables ACLs.
        self.node.set_context(LOG_DELIVERY_BY_POLICY_FLAG, True)
        if bucket_name is not None and not Token.is_unresolved(bucket_name):
            check_bucket_name(bucket_name)
        require(
            access_logs or access_logs_bucket is None,
            "access_logs_bucket",
            access_logs_bucket,
            "no bucket when access_logs is False",
        )
        noncurrent_days = noncurrent_version_expiration.to_days(integral=False)
        require(
            noncurrent_days >= 1 and noncurrent_days == int(noncurrent_days),
            "noncurrent_version_expiration",
            noncurrent_version_expiration.to_human_string(),
            "a whole number of days, at least 1",
        )
        if kms_key is not None:
            check_key_region(_known(kms_key.env.region), _known(Stack.of(self).region))

        self.kms_key = kms_key
        self.stager_principals: tuple[StagerPrincipal, ...] = tuple(stager_principals)
        self.vpc_endpoint = vpc_endpoint
        self.access_logs_bucket = (
            (access_logs_bucket or self._create_access_logs_bucket(removal_policy)) if access_logs else None
        )
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            bucket_name=bucket_name,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            encryption=s3.BucketEncryption.KMS if kms_key else s3.BucketEncryption.S3_MANAGED,
            encryption_key=kms_key,
            bucket_key_enabled=True if kms_key else None,
            enforce_ssl=True,
            minimum_tls_version=1.2,
            versioned=True,
            server_access_logs_bucket=self.access_logs_bucket,
            server_access_logs_prefix=f"{construct_id}/" if self.access_logs_bucket else None,
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="ExpireNoncurrentVersions",
                    noncurrent_version_expiration=noncurrent_version_expiration,
                    abort_incomplete_multipart_upload_after=Duration.days(INCOMPLETE_UPLOAD_DAYS),
                    expired_object_delete_marker=True,
                ),
                # Temporary objects (a compile-cache archive a killed publisher left) go after a day, every version.
                s3.LifecycleRule(
                    id="ExpireTemporaryObjects",
                    tag_filters={TEMPORARY_OBJECT_TAG[0]: TEMPORARY_OBJECT_TAG[1]},
                    expiration=Duration.days(TEMPORARY_OBJECT_DAYS),
                    noncurrent_version_expiration=Duration.days(TEMPORARY_OBJECT_DAYS),
                ),
            ],
            removal_policy=removal_policy,
        )
        self.lock = ModelBucketLock(self, "EndpointLock", bucket=self.bucket, vpc_endpoint=vpc_endpoint)
        self.grants = ModelBucketGrants(self.bucket, kms_key)

    @property
    def bucket_name(self) -> str:
        return self.bucket.bucket_name

    def s3_uri(self, prefix: str) -> str:
        """`s3://<bucket>/<prefix>`: the `--model` argument vLLM streams from."""
        return model_uri(self.bucket, prefix)

    def grant_read_models(self, principal: iam.IGrantable, prefix: str) -> iam.Grant:
        """See `ModelBucketGrants.read_models`. Reads still have to come through
        the VPC endpoint unless `principal` is a stager."""
        return self.grants.read_models(principal, prefix)

    def grant_stage_models(self, principal: iam.IGrantable, prefix: str) -> iam.Grant:
        """See `ModelBucketGrants.stage_models` (granted in this bucket's policy). A `stager_principals`
        member is also exempted from the endpoint lock under `prefix`, and only there."""
        grant = self.grants.stage_models(principal, prefix)
        arn = _principal_arn_or_none(principal)
        if arn is not None and arn in [_principal_arn(p) for p in self.stager_principals]:
            self.lock.exempt(arn, prefix)
        return grant

    def grant_compile_cache(self, principal: iam.IGrantable, prefix: str) -> iam.Grant:
        """See `ModelBucketGrants.compile_cache`."""
        return self.grants.compile_cache(principal, prefix)

    def _create_access_logs_bucket(self, removal_policy: RemovalPolicy) -> s3.Bucket:
        # Server access log targets support SSE-S3 only, not SSE-KMS. Versioned: a log deleted or overwritten
        # by a caller with write access stays recoverable for a while (evidence outlives its tampering).
        bucket = s3.Bucket(
            self,
            "AccessLogs",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            minimum_tls_version=1.2,
            versioned=True,
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="ExpireAccessLogs",
                    expiration=Duration.days(ACCESS_LOG_RETENTION_DAYS),
                    noncurrent_version_expiration=Duration.days(NONCURRENT_ACCESS_LOG_DAYS),
                ),
            ],
            removal_policy=removal_policy,
        )
        skip_checks(
            bucket,
            {"CKV_AWS_18": "the access-log bucket itself: logging its own deliveries would log without end"},
            resource_type="AWS::S3::Bucket",
        )
        return bucket


def _known(value: str) -> str | None:
    return None if Token.is_unresolved(value) else value


def _principal_arn_or_none(principal: iam.IGrantable) -> str | None:
    for attribute in ("role_arn", "user_arn"):  # jsii interfaces do not support isinstance
        value = getattr(principal, attribute, None)
        if isinstance(value, str):
            return value
    return None


def _principal_arn(principal: StagerPrincipal) -> str:
    # jsii interfaces do not support isinstance: a role has role_arn, a user user_arn.
    arn = getattr(principal, "role_arn", None) or getattr(principal, "user_arn", None)
    require(isinstance(arn, str), "stager_principals", principal, "IAM roles or users")
    assert isinstance(arn, str)
    return arn


def _conditions(spec: StatementSpec) -> dict[str, dict[str, object]] | None:
    return {k: dict(v) for k, v in spec.conditions.items()} or None


def _policy_statement(
    spec: StatementSpec, principals: Sequence[iam.IPrincipal], with_sid: bool = False
) -> iam.PolicyStatement:
    """Grant statements carry no Sid: one policy holds several grants, and Sids must be unique."""
    return iam.PolicyStatement(
        sid=spec.sid if with_sid else None,
        effect=iam.Effect.DENY if spec.effect == "Deny" else iam.Effect.ALLOW,
        actions=list(spec.actions),
        resources=list(spec.resources) or None,
        not_resources=list(spec.not_resources) or None,
        principals=list(principals),
        conditions=_conditions(spec),
    )


def _combine(grants: Sequence[iam.Grant]) -> iam.Grant:
    combined = grants[0]
    for grant in grants[1:]:
        combined = combined.combine(grant)
    return combined


def model_uri(bucket: s3.IBucket, prefix: str) -> str:
    """`s3://<bucket>/<prefix>` of any bucket: the model argument vLLM streams from."""
    return f"s3://{bucket.bucket_name}/{check_key_prefix(prefix)}"


class ModelBucketGrants:
    """Grants on the model prefixes of any `s3.IBucket`, created here or imported.

    Modelled on `s3.BucketGrants.from_bucket`: statements go to the principal's
    policy when the principal is in the bucket's account and to the bucket's
    policy otherwise (`iam.Grant.add_to_principal_or_resource`). An imported
    bucket's policy cannot be changed, so for one a cross-account reader must
    be allowed in that policy by its owner (`ModelBucketLock.statement` shows
    the lock to add there too).

    `kms_key` (default: the bucket's own `encryption_key`, set when the bucket
    was created with one or imported with `encryption_key=`) adds
    kms:Decrypt (and GenerateDataKey for writers) through S3 only.
    """

    def __init__(self, bucket: s3.IBucket, kms_key: kms.IKey | None = None) -> None:
        self.bucket = bucket
        self.kms_key = kms_key if kms_key is not None else bucket.encryption_key

    @classmethod
    def from_bucket(cls, bucket: s3.IBucket, kms_key: kms.IKey | None = None) -> ModelBucketGrants:
        return cls(bucket, kms_key)

    def read_models(self, principal: iam.IGrantable, prefix: str) -> iam.Grant:
        """Read-only access to the models under `prefix`: GetObject, a prefix-scoped
        ListBucket and, with SSE-KMS, kms:Decrypt via S3."""
        grants = [self._grant(principal, spec) for spec in read_models_statements(self.bucket.bucket_arn, prefix)]
        if self.kms_key is not None:
            grants.append(self._grant_key(principal, KMS_READ_ACTIONS))
        return _combine(grants)

    def stage_models(self, principal: iam.IGrantable, prefix: str) -> iam.Grant:
        """Upload access under `prefix` (multipart included), reading back and listing it.

        Granted in the bucket policy when this app owns the bucket: stagers are
        often SSO permission-set roles or roles in another account, which this
        stack cannot or should not edit. For an imported bucket (its policy is
        not ours) it falls back to the principal's policy, with a synth
        warning. With SSE-KMS the key use goes into the key policy when this app
        owns the key, else into the principal's policy, also with a warning.
        """
        grants = [
            self._grant_on_bucket(principal, spec) for spec in stage_models_statements(self.bucket.bucket_arn, prefix)
        ]
        if self.kms_key is not None:
            grants.append(self._grant_key_on_key_policy(principal, KMS_STAGE_ACTIONS))
        return _combine(grants)

    def compile_cache(self, principal: iam.IGrantable, prefix: str) -> iam.Grant:
        """Read and publish shared compile-cache archives under `prefix` (the vLLM pods' role).

        Get, put, and delete of the temporary upload key, all confined to
        `prefix/*`; with SSE-KMS, the key use for reading and writing via S3.
        """
        grants = [self._grant(principal, spec) for spec in compile_cache_statements(self.bucket.bucket_arn, prefix)]
        if self.kms_key is not None:
            grants.append(self._grant_key(principal, KMS_STAGE_ACTIONS))
        return _combine(grants)

    def _grant(self, principal: iam.IGrantable, spec: StatementSpec) -> iam.Grant:
        return iam.Grant.add_to_principal_or_resource(
            grantee=principal,
            actions=list(spec.actions),
            resource_arns=list(spec.resources),
            resource=self.bucket,
            conditions=_conditions(spec),
        )

    def _grant_on_bucket(self, principal: iam.IGrantable, spec: StatementSpec) -> iam.Grant:
        if isinstance(self.bucket, s3.Bucket):  # owned by this app: its bucket policy can be extended
            statement = _policy_statement(spec, principals=[principal.grant_principal])
            return iam.Grant.add_statement_to_resource_policy(
                statement=statement,
                resource=self.bucket,
                grantee=principal,
                actions=list(spec.actions),
                resource_arns=list(spec.resources),
                conditions=_conditions(spec),
            )
        Annotations.of(self.bucket).add_warning_v2(
            "fastload:importedBucketStager",
            "the model bucket is imported, so its bucket policy cannot be changed here: staging rights go "
            "into the stager's own policy (an imported immutable role needs them given elsewhere)",
        )
        return iam.Grant.add_to_principal(
            grantee=principal,
            actions=list(spec.actions),
            resource_arns=list(spec.resources),
            conditions=_conditions(spec),
        )

    def _key_spec(self, actions: Sequence[str]) -> StatementSpec:
        assert self.kms_key is not None
        stack = Stack.of(self.bucket)
        return kms_statement(self.kms_key.key_arn, actions, f"s3.{stack.region}.{stack.url_suffix}")

    def _grant_key(self, principal: iam.IGrantable, actions: Sequence[str]) -> iam.Grant:
        assert self.kms_key is not None
        spec = self._key_spec(actions)
        return iam.Grant.add_to_principal_or_resource(
            grantee=principal,
            actions=list(spec.actions),
            resource_arns=list(spec.resources),
            resource=self.kms_key,
            resource_self_arns=["*"],
            conditions=_conditions(spec),
        )

    def _grant_key_on_key_policy(self, principal: iam.IGrantable, actions: Sequence[str]) -> iam.Grant:
        assert self.kms_key is not None
        spec = self._key_spec(actions)
        if isinstance(self.kms_key, kms.Key):  # owned by this app: its key policy can be extended
            # In a key policy the key is "*" (the policy's own key).
            statement = _policy_statement(replace(spec, resources=("*",)), principals=[principal.grant_principal])
            return iam.Grant.add_statement_to_resource_policy(
                statement=statement,
                resource=self.kms_key,
                grantee=principal,
                actions=list(spec.actions),
                resource_arns=["*"],
                conditions=_conditions(spec),
            )
        Annotations.of(self.bucket).add_warning_v2(
            "fastload:importedKmsKeyStager",
            "kms_key is imported, so its key policy cannot be changed here: the stager's own policy "
            "must allow kms:GenerateDataKey and kms:Decrypt on it",
        )
        return iam.Grant.add_to_principal(
            grantee=principal,
            actions=list(spec.actions),
            resource_arns=list(spec.resources),
            conditions=_conditions(spec),
        )


class ModelBucketLock(Construct):
    """The endpoint lock on any bucket: deny object reads, writes and listings that do not arrive
    through `vpc_endpoint` (`core.access.model_bucket.endpoint_lock_statements`), each stager exempt only
    under its own prefixes.

    Exemptions: `stager_prefixes` (prefix -> stager roles or users) and `exempt(arn, prefix)`,
    which `ModelBucket.grant_stage_models` calls; the statements follow until synthesis.
    Where they go: the bucket's own policy when this app created the bucket; else `policy`, an
    `s3.BucketPolicy` of that bucket that this app owns (an S3 bucket has one policy: a new
    `AWS::S3::BucketPolicy` for an imported bucket would replace whatever policy it has, so none is
    created here). With neither, nothing is changed: the stack outputs the statements as JSON
    (`<id>Statement`, resolved at deploy) with a synth warning, for the bucket's owner to add. A
    policy given or printed also gets the TLS-only deny that `enforce_ssl` puts on a created bucket.
    Attributes: `statements` (the lock), `tls_statement`, `applied`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        bucket: s3.IBucket,
        vpc_endpoint: ec2.IVpcEndpoint,
        stager_prefixes: Mapping[str, Sequence[StagerPrincipal]] | None = None,
        policy: s3.BucketPolicy | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._bucket_arn = bucket.bucket_arn
        self._vpc_endpoint_id = vpc_endpoint.vpc_endpoint_id
        self._stager_prefixes: dict[str, list[str]] = {}
        self.statements: dict[str, iam.PolicyStatement] = {}
        # What ModelBucket's enforce_ssl adds to a bucket it creates; an imported bucket's policy needs it too.
        self.tls_statement = iam.PolicyStatement(
            sid="DenyInsecureTransport",
            effect=iam.Effect.DENY,
            principals=[iam.AnyPrincipal()],
            actions=["s3:*"],
            resources=[bucket.bucket_arn, bucket.arn_for_objects("*")],
            conditions={"Bool": {"aws:SecureTransport": "false"}},
        )
        self.applied = True
        self._place: Callable[[iam.PolicyStatement], object]
        if policy is not None:
            policy.document.add_statements(self.tls_statement)
            self._place = policy.document.add_statements
        elif isinstance(bucket, s3.Bucket):  # created by this app: TLS is its enforce_ssl's business
            self._place = bucket.add_to_resource_policy
        else:
            self.applied = False
            self._place = lambda statement: None  # printed once every exemption is known (below)
        self._sealed = False
        self._render()
        for prefix, principals in (stager_prefixes or {}).items():
            for principal in principals:
                self.exempt(_principal_arn(principal), prefix)
        if not self.applied:
            statements = [s.to_statement_json() for s in (*self.statements.values(), self.tls_statement)]
            CfnOutput(
                self,
                "Statement",
                value=Stack.of(self).to_json_string(statements),
                description="Add these statements to the model bucket's policy: model reads and writes stay "
                "inside the VPC, and TLS only",
            )
            Annotations.of(self).add_warning_v2(
                "fastload:endpointLockNotApplied",
                "the model bucket is imported and no bucket policy of it was given: the endpoint lock is not "
                "applied; add the statements in this stack's output to the bucket's policy, or pass policy=",
            )
            self._sealed = True  # the output is written: later exemptions could not reach it

    def exempt(self, principal_arn: str, prefix: str) -> None:
        """Let `principal_arn` reach `prefix` (and list it) from outside the endpoint; nothing else."""
        require(
            not self._sealed,
            "stager_prefixes",
            principal_arn,
            "exemptions given when the lock is made (stager_prefixes=) for a bucket whose lock is printed",
        )
        arns = self._stager_prefixes.setdefault(check_key_prefix(prefix), [])
        if principal_arn not in arns:
            arns.append(principal_arn)
        self._render()

    def _render(self) -> None:
        """Place new statements and widen the ones already placed (a PolicyStatement stays mutable
        until synthesis)."""
        for spec in self._specs():
            statement = self.statements.get(spec.sid)
            if statement is None:
                statement = _policy_statement(spec, [iam.AnyPrincipal()], with_sid=True)
                self.statements[spec.sid] = statement
                self._place(statement)
                continue
            missing = [arn for arn in spec.not_resources if arn not in statement.not_resources]
            if missing:
                statement.add_not_resources(*missing)
            for operator, keys in spec.conditions.items():
                statement.add_condition(operator, dict(keys))

    def _specs(self) -> list[StatementSpec]:
        return endpoint_lock_statements(self._bucket_arn, self._vpc_endpoint_id, self._stager_prefixes)
