"""The deploy rehearsal: a synthesised template resolved as CloudFormation would, then checked as the services will.

Modules: `environment` (account, region, generated names), `return_values` (Ref/GetAtt per
resource type, with sources), `resolve` (every intrinsic), `kubernetes` (the API server's
validation rules), `helm` (chart values that land in pod specs), `trust` (documented request
contexts of service principals), `limits` (IAM and CloudFormation quotas) and
`deployment` (all of it on one stack).
"""
