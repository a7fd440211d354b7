#!/usr/bin/env python3
"""Read tokens built byte for byte as SeaweedFS's Go code builds them (weed/security/jwt.go GenJwtForVolumeServer,
golang-jwt v5): header {"alg":"HS256","typ":"JWT"} (a Go map, keys sorted), claims in the struct's field order
(fid, then RegisteredClaims: iss, sub, aud, exp, nbf, iat, jti, empty ones left out), compact JSON, base64url without
padding, HMAC over "header.claims". Independent of the Java code under test: JwtReadAuthHttpTest pins its output.

usage: seaweedfs_read_jwt.py KEY FID [exp=N] [nbf=N] [alg=HS256|HS512|RS256|none]
"""
import base64
import hashlib
import hmac
import json
import sys


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def token(key: str, fid: str, exp=None, nbf=None, alg="HS256") -> str:
    header = json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":"), sort_keys=True)
    claims = {"fid": fid}
    for name, value in (("exp", exp), ("nbf", nbf)):
        if value is not None:
            claims[name] = value
    signing_input = b64(header.encode()) + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
    if alg == "none":
        return signing_input + "."
    # RS256 here is the classic confusion attack: an RS256 header over an HMAC made with the shared key.
    digest = hashlib.sha512 if alg == "HS512" else hashlib.sha256
    return signing_input + "." + b64(hmac.new(key.encode(), signing_input.encode(), digest).digest())


if __name__ == "__main__":
    options = dict(a.split("=", 1) for a in sys.argv[3:])
    print(token(sys.argv[1], sys.argv[2], int(options["exp"]) if "exp" in options else None,
                int(options["nbf"]) if "nbf" in options else None, options.get("alg", "HS256")))
