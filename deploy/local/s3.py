#!/usr/bin/env python3
"""The few S3 calls the local cluster makes against moto's server, with
boto3 (installed with moto[server]).

    s3.py mb ENDPOINT BUCKET                     create a bucket
    s3.py put-tree ENDPOINT BUCKET PREFIX DIR    upload DIR under PREFIX/
    s3.py republish ENDPOINT BUCKET KEY          write KEY again with one more
                                                 trailing space (a JSON
                                                 manifest stays valid): a new
                                                 object version, i.e. a release
"""
import concurrent.futures
import os
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
    elif command == "put-tree":
        prefix, root = sys.argv[4].strip("/"), sys.argv[5]
        files = []
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                key = os.path.relpath(path, root).replace(os.sep, "/")
                files.append((path, f"{prefix}/{key}" if prefix else key))

        def put(item):
            path, key = item
            with open(path, "rb") as f:
                s3.put_object(Bucket=bucket, Key=key, Body=f.read())

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(put, files))
        print(f"uploaded {len(files)} objects to s3://{bucket}/{prefix}")
    elif command == "republish":
        key = sys.argv[4].lstrip("/")
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        s3.put_object(Bucket=bucket, Key=key, Body=body + b" ")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
