#!/usr/bin/env python3
"""The few S3 calls the local cluster makes against moto's server, with
boto3 (installed with moto[server]); the store itself is published with
`linecast-admin data publish`.

    s3.py mb ENDPOINT BUCKET                     create a bucket
    s3.py republish ENDPOINT BUCKET KEY          write KEY again with one more
                                                 trailing space (a JSON
                                                 manifest stays valid): a new
                                                 object version, i.e. a release
"""
import sys

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="cluster",
        aws_secret_access_key="cluster",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3}),
    )


def main():
    command, endpoint, bucket = sys.argv[1], sys.argv[2], sys.argv[3]
    s3 = client(endpoint)
    if command == "mb":
        s3.create_bucket(Bucket=bucket)
    elif command == "republish":
        key = sys.argv[4].lstrip("/")
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        s3.put_object(Bucket=bucket, Key=key, Body=body + b" ")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
