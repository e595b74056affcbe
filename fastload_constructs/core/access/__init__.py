"""Who may do what, as IAM statement specs: model-bucket readers and stagers, Pod Identity trust."""
