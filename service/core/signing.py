"""The server's Ed25519 key: it signs stream heads so a copy of a log can prove where it came from.

A hash chain only proves a log is self-consistent: whoever edits an event can recompute every
hash after it. A head signed by the server's private key cannot be recomputed, so an export,
a standings page or a deal history vouches for exactly one (stream, version, head hash).

What is signed, byte for byte, is the UTF-8 text::

    cardledger-head:v1:{stream id}:{version}:{head hash}

e.g. ``cardledger-head:v1:5f0c…e2:57:9c1f…a0`` (the stream id and head hash in lower-case hex,
the version in decimal). Keys and signatures travel as standard base64 (with padding) of the
raw bytes: a 32-byte public key as ``GET /signing-key`` serves it, a 64-byte signature. Any
Ed25519 library checks a head offline, e.g. with PyNaCl::

    VerifyKey(b64decode(public_key)).verify(message.encode(), b64decode(signature))

A key's ``key_id`` is the first 16 hex digits of SHA-256 of its raw public key: a short name
for the key, never a substitute for it.

The private key is ``CARDLEDGER_SIGNING_KEY`` (base64 of the raw 32 bytes) or the file
``var/signing-key``, generated once (mode 600) like the organiser token.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from service.core.resources import CONFIG_KEY, resources
from service.core.secret_files import read_secret

if TYPE_CHECKING:
    from flask import Flask

MESSAGE_PREFIX = "cardledger-head:v1"
IMPORT_PREFIX = "cardledger-import:v1"
SIGNING_KEY_FILE = "signing-key"
EXTENSION_KEY = "cardledger.signing"


def head_message(stream: str, version: int, head: str) -> bytes:
    """The exact bytes a head's signature covers (see the module docstring)."""
    return f"{MESSAGE_PREFIX}:{stream}:{version}:{head}".encode()


def import_message(stream: str, version: int, head: str, origin_key: str | None) -> bytes:
    """What an import mark's attestation covers: this server took the stream with this
    head in, signed by ``origin_key`` (``None``: unsigned, on the organiser's word)."""
    signed = "signed" if origin_key else "unsigned"
    return f"{IMPORT_PREFIX}:{stream}:{version}:{head}:{signed}:{origin_key or '-'}".encode()


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _unb64(text: str, size: int, what: str) -> bytes:
    """Strict base64 of exactly ``size`` bytes; ValueError names ``what`` otherwise."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError, AttributeError):
        raise ValueError(f"{what} is not base64") from None
    if len(raw) != size:
        raise ValueError(f"{what} is {len(raw)} bytes, not {size}")
    return raw


def key_id(public_key: bytes) -> str:
    """A short stable name of a raw public key: 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def parse_public_key(text: str) -> bytes:
    """A raw 32-byte Ed25519 public key from its base64 text (as ``/signing-key`` serves it)."""
    return _unb64(text, 32, "the public key")


def parse_signature(text: Any) -> bytes:
    """A raw 64-byte signature from its base64 text."""
    if not isinstance(text, str):
        raise ValueError("the signature is not a base64 string")
    return _unb64(text, 64, "the signature")


def new_private_key() -> str:
    """A fresh private key as base64 text (the form of ``var/signing-key``)."""
    return _b64(bytes(SigningKey.generate()))


def verified(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``message``."""
    try:
        VerifyKey(public_key).verify(message, signature)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


def verify_head(public_key: bytes, stream: str, version: int, head: str, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s signature of this head."""
    return verified(public_key, head_message(stream, version, head), signature)


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A stream's head and the server's word for it (None: it carries none)."""

    version: int
    hash: str
    signature: str | None
    key_id: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "hash": self.hash,
            "signature": self.signature,
            "key_id": self.key_id,
        }


class Signer:
    """The server's private key; ``public_key`` and ``key_id`` are what others trust.

    Signs with libsodium (PyNaCl): every append signs its head, and libsodium signs in
    half the time OpenSSL takes here; the key and signatures are plain Ed25519 (RFC 8032).
    """

    def __init__(self, private_key: str) -> None:
        raw = _unb64(private_key, 32, "the signing key")
        self._key = SigningKey(raw)
        self.public_raw = bytes(self._key.verify_key)
        self.public_key = _b64(self.public_raw)
        self.key_id = key_id(self.public_raw)

    def sign_head(self, stream: str, version: int, head: str) -> SignedHead:
        return SignedHead(version, head, self.sign(head_message(stream, version, head)),
                          self.key_id)  # fmt: skip

    def sign(self, message: bytes) -> str:
        return _b64(self._key.sign(message).signature)


@dataclass(frozen=True, slots=True)
class Keyring:
    """The server's own signer and every public key it trusts (its own included), by key id."""

    signer: Signer
    trusted: Mapping[str, bytes]

    @classmethod
    def build(cls, private_key: str, trusted_keys: Iterable[str] = ()) -> Keyring:
        signer = Signer(private_key)
        trusted = {key_id(raw): raw for raw in map(parse_public_key, trusted_keys)}
        return cls(signer, {**trusted, signer.key_id: signer.public_raw})

    def fault(
        self, message: bytes, signature: str | None, key: str | None
    ) -> tuple[str, str] | None:
        """Whether a trusted key signed ``message``: None, or a problem (code, detail)
        coded ``unsigned``, ``untrusted_key`` or ``bad_signature``.

        Ed25519 signatures are deterministic (RFC 8032), so one of this server's own is
        checked by signing again and comparing, at a third of a verification's cost.
        """
        if signature is None:
            return "unsigned", "it carries no signature"
        if key == self.signer.key_id:
            if hmac.compare_digest(self.signer.sign(message), signature):
                return None
            return "bad_signature", f"key {key}'s signature does not match it"
        public = self.trusted.get(key or "")
        if public is None:
            return "untrusted_key", f"it is signed by key {key!r}, which this server does not trust"
        try:
            raw = parse_signature(signature)
        except ValueError:
            return "bad_signature", f"key {key}'s signature is unreadable"
        if not verified(public, message, raw):
            return "bad_signature", f"key {key}'s signature does not match it"
        return None


def keyring(app: Flask | None = None) -> Keyring:
    """The app's keyring, built once from its configuration; without a configured key, the
    one in ``var/signing-key``, generated now if need be (only a server that signs has one)."""
    house = app.extensions if app is not None else resources()
    found: Keyring | None = house.get(EXTENSION_KEY)
    if found is None:
        config = house[CONFIG_KEY]
        private = config.signing_key or ensure_signing_key({}, config.var_dir)[0]
        found = Keyring.build(private, config.trusted_keys)
        house[EXTENSION_KEY] = found
    return found


def read_signing_key(env: Mapping[str, str], var_dir: Path) -> str | None:
    """``CARDLEDGER_SIGNING_KEY``, else the contents of ``var/signing-key``, else None."""
    return read_secret(env, "CARDLEDGER_SIGNING_KEY", var_dir / SIGNING_KEY_FILE)


def ensure_signing_key(env: Mapping[str, str], var_dir: Path) -> tuple[str, bool]:
    """The private key, creating ``var/signing-key`` (mode 600) when none is configured.

    The second value says whether a key was generated. The key is written to a private
    temporary file, then hard-linked into place: the link fails if the file exists, so two
    workers starting at once end up with one key, and neither ever reads a half-written file.
    """
    existing = read_signing_key(env, var_dir)
    if existing:
        return existing, False
    var_dir.mkdir(parents=True, exist_ok=True)
    path = var_dir / SIGNING_KEY_FILE
    key = new_private_key()
    path.unlink(missing_ok=True)  # only reached when the file is absent or empty
    fd, temporary = tempfile.mkstemp(prefix=".signing-key.", dir=var_dir)  # mode 600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key + "\n")
        os.link(temporary, path)
    except FileExistsError:  # another process won the race: use its key
        return path.read_text(encoding="utf-8").strip(), False
    finally:
        os.unlink(temporary)
    return key, True


def parse_trusted_keys(text: str) -> tuple[str, ...]:
    """``CARDLEDGER_TRUSTED_KEYS``: comma-separated base64 public keys, each checked here so a
    typo stops the server at start rather than refusing imports later."""
    keys = tuple(part.strip() for part in text.split(",") if part.strip())
    for number, key in enumerate(keys, start=1):
        try:
            parse_public_key(key)
        except ValueError as error:
            raise ValueError(f"CARDLEDGER_TRUSTED_KEYS, key {number}: {error}") from None
    return keys
