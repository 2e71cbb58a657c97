"""Signed heads (``docs/api.md``, Audit, "Signatures"; issue 12, finding 3).

A hash chain alone is forged consistently: edit a director's ruling, recompute every hash and
the header's head, and the file is self-consistent. The server's Ed25519 signature of the head
is what a forger cannot recompute, so:

- ``POST /tables/import`` refuses a file no trusted key signed (422 ``bad_signature``,
  ``untrusted_key``, ``unsigned_export``), trusts other servers listed in
  ``CARDLEDGER_TRUSTED_KEYS``, and imports an unsigned file only on ``?unsigned=true``,
  marking the table in its summary;
- ``cardledger verify FILE --key PUB`` checks the signature offline;
- standings (JSON and HTML) and deal histories (JSON and text) carry the signed head.

Signatures are checked here with ``cryptography`` directly against the message the contract
documents, not with the service's own verifier.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert, select
from werkzeug.test import TestResponse

from service.core.config import Config
from service.core.signing import ensure_signing_key, new_private_key
from service.running.app import create_app
from service.running.cli import main as cardledger
from service.storage.db import get_database
from service.storage.eventstore import GENESIS, canonical_event, canonical_json, chain_hash
from service.storage.models import events, table_imports
from tests.helpers import (
    ADMIN_TOKEN,
    ORGANISER,
    Json,
    assert_problem,
    export_of,
    import_file,
    make_test_app,
    open_table,
)
from tests.service.log_damage import rewrite_from, stored

# --- helpers ---------------------------------------------------------------------------------


def ok_json(response: TestResponse) -> Any:
    assert response.status_code == 200, (response.status_code, response.get_data(as_text=True))
    return response.get_json()


def public_key_of(private_key: str) -> str:
    raw = Ed25519PrivateKey.from_private_bytes(base64.b64decode(private_key)).public_key()
    return base64.b64encode(raw.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def key_id_of(public_key: str) -> str:
    return hashlib.sha256(base64.b64decode(public_key)).hexdigest()[:16]


def signs(public_key: str, stream: str, version: int, head: str, signature: str) -> bool:
    """The contract's check: Ed25519 over ``cardledger-head:v1:{stream}:{version}:{head}``."""
    message = f"cardledger-head:v1:{stream}:{version}:{head}".encode()
    try:
        Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key)).verify(
            base64.b64decode(signature), message
        )
    except InvalidSignature:
        return False
    return True


def act(client: FlaskClient, table_id: str, action: Json) -> Json:
    response = client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER)
    assert response.status_code == 201, (action, response.get_json())
    return response.get_json()


def state(client: FlaskClient, table_id: str) -> Json:
    return ok_json(client.get(f"/tables/{table_id}/state", headers=ORGANISER))


RULING = {"type": "adjust", "seat": 1, "points": -10, "reason": "revoke in trick 1"}
RULING_DATA = {k: v for k, v in RULING.items() if k != "type"}


def ruled_table(client: FlaskClient, seed: str) -> str:
    """A table mid-deal whose last event is a director's ruling: nothing after it re-adds the
    totals, so the engine cannot tell what its points were."""
    table_id = open_table(client, players=3, target_score=None, seed=seed).id
    rng = random.Random(seed)
    while (now := state(client, table_id))["phase"] != "playing":
        act(client, table_id, rng.choice(now["legal_actions"]))
    act(client, table_id, rng.choice(now["legal_actions"]))  # one card into the trick
    act(client, table_id, RULING)
    return table_id


def lines_of(text: str) -> tuple[Json, list[Json]]:
    header, *items = (json.loads(line) for line in text.splitlines())
    return header, items


def text_of(header: Json, items: list[Json]) -> str:
    return "".join(line + "\n" for line in [json.dumps(header), *map(canonical_json, items)])


def rehashed_with_points(export: str, points: int) -> tuple[Json, list[Json]]:
    """The consistent forgery: the ruling's points changed, every hash after it recomputed
    and the header's head too; the header keeps the original signature."""
    header, items = lines_of(export)
    previous = GENESIS
    for item in items:
        if item["type"] == "Adjusted":
            item["data"] = {**item["data"], "points": points}
        canonical = canonical_event(header["id"], item["version"], item["type"], item["schema"],
                                    item["data"], item["recorded_at"], item["by"])  # fmt: skip
        item["hash"] = previous = chain_hash(previous, canonical)
    return {**header, "head": previous}, items


def unsigned(header: Json) -> Json:
    return {k: v for k, v in header.items() if k not in ("signature", "key_id")}


def signed_by(private: Ed25519PrivateKey) -> Callable[[Json], Json]:
    """The header re-signed by a key of the forger's own."""

    def sign(header: Json) -> Json:
        message = f"cardledger-head:v1:{header['id']}:{header['events']}:{header['head']}"
        raw_public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {
            **header,
            "signature": base64.b64encode(private.sign(message.encode())).decode(),
            "key_id": hashlib.sha256(raw_public).hexdigest()[:16],
        }

    return sign


def run_verify(capsys: pytest.CaptureFixture[str], path: Path, *options: str) -> tuple[int, str]:
    code = cardledger(["verify", str(path), *options])
    return code, capsys.readouterr().out


# --- servers ---------------------------------------------------------------------------------

ORIGIN_KEY = new_private_key()
ORIGIN_PUBLIC = public_key_of(ORIGIN_KEY)


def new_app(tmp: pytest.TempPathFactory, name: str, **keys: Any) -> Flask:
    return make_test_app(f"sqlite:///{tmp.mktemp(name) / 'ledger.db'}", **keys)


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """Where the tables are played, with a key the tests know."""
    app = new_app(tmp_path_factory, "origin", signing_key=ORIGIN_KEY)
    yield app.test_client()
    get_database(app).engine.dispose()


@pytest.fixture(scope="module")
def trusting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """Another server, with its own key, that trusts the origin's (CARDLEDGER_TRUSTED_KEYS)."""
    app = new_app(tmp_path_factory, "trusting", trusted_keys=(ORIGIN_PUBLIC,))
    yield app.test_client()
    get_database(app).engine.dispose()


@pytest.fixture
def ruled_export(origin: FlaskClient) -> str:
    """A fresh table's export (a table imported once stays imported)."""
    return export_of(origin, ruled_table(origin, "signed-ruling"), reveal=True)


# --- the signing key -------------------------------------------------------------------------


def test_the_signing_key_is_public_and_is_the_configured_key(origin: FlaskClient) -> None:
    body = ok_json(origin.get("/signing-key"))  # no token
    assert body == {"key_id": key_id_of(ORIGIN_PUBLIC), "public_key": ORIGIN_PUBLIC}
    assert len(base64.b64decode(body["public_key"], validate=True)) == 32
    assert re.fullmatch("[0-9a-f]{16}", body["key_id"])
    assert ok_json(origin.get("/signing-key")) == body


def test_a_server_without_a_configured_key_generates_one_once_with_mode_600(
    tmp_path: Path,
) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'ledger.db'}"}
    config = Config.from_env(env, tmp_path)
    assert config.signing_key is None and not (tmp_path / "signing-key").exists()
    served = []
    for _ in range(2):  # a restart keeps the key
        app = create_app(Config.from_env(env, tmp_path))
        served.append(ok_json(app.test_client().get("/signing-key")))
        get_database(app).engine.dispose()
    key = (tmp_path / "signing-key").read_text(encoding="utf-8").strip()
    assert stat.S_IMODE((tmp_path / "signing-key").stat().st_mode) == 0o600
    public = public_key_of(key)
    assert served == [{"key_id": key_id_of(public), "public_key": public}] * 2
    assert Config.from_env(env, tmp_path).signing_key == key
    assert ensure_signing_key({}, tmp_path) == (key, False)


def test_the_configured_keys_come_from_the_environment(tmp_path: Path) -> None:
    env = {"CARDLEDGER_SIGNING_KEY": ORIGIN_KEY, "CARDLEDGER_TRUSTED_KEYS": " a , b "}
    with pytest.raises(ValueError, match="CARDLEDGER_TRUSTED_KEYS, key 1"):
        Config.from_env(env, tmp_path)
    other = public_key_of(new_private_key())
    env["CARDLEDGER_TRUSTED_KEYS"] = f"{ORIGIN_PUBLIC}, {other},"
    config = Config.from_env(env, tmp_path)
    assert (config.signing_key, config.trusted_keys) == (ORIGIN_KEY, (ORIGIN_PUBLIC, other))
    assert not (tmp_path / "signing-key").exists()
    with pytest.raises(ValueError, match="CARDLEDGER_SIGNING_KEY"):
        Config.from_env({"CARDLEDGER_SIGNING_KEY": "not a key"}, tmp_path)


# --- exports ---------------------------------------------------------------------------------


def test_an_export_header_carries_a_valid_signature_of_its_head(
    origin: FlaskClient, ruled_export: str
) -> None:
    header, items = lines_of(ruled_export)
    assert header["key_id"] == key_id_of(ORIGIN_PUBLIC)
    assert (header["events"], header["head"]) == (items[-1]["version"], items[-1]["hash"])
    assert signs(ORIGIN_PUBLIC, header["id"], header["events"], header["head"], header["signature"])
    assert items[-1]["type"] == "Adjusted"


def test_the_untouched_export_imports_elsewhere_and_verifies_with_the_key(
    trusting: FlaskClient, ruled_export: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header, _ = lines_of(ruled_export)
    path = tmp_path / "table.jsonl"
    path.write_text(ruled_export, encoding="utf-8")
    code, out = run_verify(capsys, path, "--key", ORIGIN_PUBLIC)
    assert code == 0 and "OK" in out and f"signed by key {header['key_id']}" in out, out
    code, out = run_verify(capsys, path)
    assert code == 0 and "NOT checked" in out, out

    assert import_file(trusting, ruled_export).status_code == 201
    mark = ok_json(trusting.get(f"/tables/{header['id']}"))["import"]
    assert (mark["signed"], mark["key_id"]) == (True, header["key_id"])
    assert isinstance(mark["at"], str) and mark["at"]
    # The copy exports byte for byte as it came: under its origin's signature, never under
    # the importer's (which vouches for nothing it did not record).
    assert export_of(trusting, header["id"], reveal=True) == ruled_export


FORGERS = {  # what the forger does with the header's signature, and the code that refuses it
    "keeps-the-signature": (lambda header: header, "bad_signature"),
    "drops-the-signature": (unsigned, "unsigned_export"),
    "signs-with-own-key": (signed_by(Ed25519PrivateKey.generate()), "untrusted_key"),
}


@pytest.mark.parametrize(("resign", "code"), FORGERS.values(), ids=FORGERS.keys())
def test_a_ruling_forged_with_a_recomputed_chain_is_refused(
    trusting: FlaskClient,
    ruled_export: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    resign: Callable[[Json], Json],
    code: str,
) -> None:
    header, items = rehashed_with_points(ruled_export, 90)
    forged = text_of(resign(header), items)
    path = tmp_path / "forged.jsonl"
    path.write_text(forged, encoding="utf-8")
    chain_only, out = run_verify(capsys, path)
    assert chain_only == 0 and "NOT checked" in out, out  # the chain alone is fooled

    table_id = header["id"]
    body = assert_problem(import_file(trusting, forged), 422, code)
    assert body["line"] == 1 and body["detail"], body
    assert trusting.get(f"/tables/{table_id}").status_code == 404

    checked, out = run_verify(capsys, path, "--key", ORIGIN_PUBLIC)
    assert checked == 1 and f"line 1 (version 0): {code}: " in out, out


def test_a_tampered_signed_file_is_refused_even_when_unsigned_imports_are_asked_for(
    trusting: FlaskClient, ruled_export: str
) -> None:
    header, items = rehashed_with_points(ruled_export, 90)
    body = assert_problem(import_file(trusting, text_of(header, items), "?unsigned=true"), 422,
                          "bad_signature")  # fmt: skip
    assert "changed after it was signed" in body["detail"], body
    assert trusting.get(f"/tables/{header['id']}").status_code == 404


def test_verify_names_the_key_a_file_is_signed_by_when_another_is_given(
    ruled_export: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.jsonl"
    path.write_text(ruled_export, encoding="utf-8")
    other = public_key_of(new_private_key())
    code, out = run_verify(capsys, path, "--key", other)
    assert code == 1 and "untrusted_key" in out and key_id_of(ORIGIN_PUBLIC) in out, out
    assert key_id_of(other) in out
    assert cardledger(["verify", str(path), "--key", "not-base64!"]) == 2


# --- trust -----------------------------------------------------------------------------------


def test_a_file_signed_by_another_server_is_refused_until_its_key_is_trusted(
    origin: FlaskClient, tmp_path_factory: pytest.TempPathFactory
) -> None:
    exported = export_of(origin, ruled_table(origin, "trust-me"), reveal=True)
    table_id = lines_of(exported)[0]["id"]
    url = f"sqlite:///{tmp_path_factory.mktemp('strange') / 'ledger.db'}"
    own_key = new_private_key()
    stranger = make_test_app(url, signing_key=own_key)  # trusts its own key only
    try:
        body = assert_problem(import_file(stranger.test_client(), exported), 422, "untrusted_key")
        assert key_id_of(ORIGIN_PUBLIC) in body["detail"]
        assert "CARDLEDGER_TRUSTED_KEYS" in body["detail"] and "?unsigned=true" in body["detail"]
        assert stranger.test_client().get(f"/tables/{table_id}").status_code == 404
    finally:
        get_database(stranger).engine.dispose()

    env = {"DATABASE_URL": url, "CARDLEDGER_ADMIN_TOKEN": ADMIN_TOKEN,
           "CARDLEDGER_SIGNING_KEY": own_key, "CARDLEDGER_TRUSTED_KEYS": ORIGIN_PUBLIC}  # fmt: skip
    restarted = create_app(Config.from_env(env, tmp_path_factory.mktemp("var")))
    try:
        client = restarted.test_client()
        assert import_file(client, exported).status_code == 201
        mark = ok_json(client.get(f"/tables/{table_id}"))["import"]
        assert (mark["signed"], mark["key_id"]) == (True, key_id_of(ORIGIN_PUBLIC))
    finally:
        get_database(restarted).engine.dispose()


def test_a_server_trusts_its_own_exports(origin: FlaskClient) -> None:
    exported = export_of(origin, ruled_table(origin, "own"), reveal=True)
    assert_problem(import_file(origin, exported), 409, "table_exists")  # past the signature


# --- unsigned imports ------------------------------------------------------------------------


def test_an_unsigned_file_imports_only_on_request_and_is_marked(
    origin: FlaskClient, trusting: FlaskClient
) -> None:
    header, items = lines_of(export_of(origin, ruled_table(origin, "unsigned"), reveal=True))
    text = text_of(unsigned(header), items)
    body = assert_problem(import_file(trusting, text), 422, "unsigned_export")
    assert "?unsigned=true" in body["detail"]
    assert trusting.get(f"/tables/{header['id']}").status_code == 404
    bad = assert_problem(import_file(trusting, text, "?unsigned=maybe"), 422, "validation_error")
    assert "unsigned" in bad["errors"]

    assert import_file(trusting, text, "?unsigned=true").status_code == 201
    summary = ok_json(trusting.get(f"/tables/{header['id']}"))
    assert summary["import"]["signed"] is False and summary["import"]["key_id"] is None
    assert summary["version"] == header["events"]
    assert ok_json(origin.get(f"/tables/{header['id']}"))["import"] is None
    # No laundering: re-exported, it still says unsigned and carries no signature at all.
    again, _ = lines_of(export_of(trusting, header["id"], reveal=True))
    assert again == {**unsigned(header), "unsigned": True}


def test_a_file_signed_by_an_untrusted_key_imports_unsigned_on_request(
    origin: FlaskClient, tmp_path_factory: pytest.TempPathFactory
) -> None:
    exported = export_of(origin, ruled_table(origin, "untrusted"), reveal=True)
    table_id = lines_of(exported)[0]["id"]
    stranger = new_app(tmp_path_factory, "stranger")
    try:
        client = stranger.test_client()
        assert_problem(import_file(client, exported), 422, "untrusted_key")
        assert import_file(client, exported, "?unsigned=true").status_code == 201
        mark = ok_json(client.get(f"/tables/{table_id}"))["import"]
        assert (mark["signed"], mark["key_id"]) == (False, None)
        again, _ = lines_of(
            export_of(client, table_id, reveal=True)
        )  # unchecked: not passed on as signed
        assert again["unsigned"] is True and "signature" not in again and "key_id" not in again
    finally:
        get_database(stranger).engine.dispose()


# --- signed heads on standings and deal histories ---------------------------------------------


def test_a_deal_history_carries_the_tables_signed_head(origin: FlaskClient) -> None:
    table_id = ruled_table(origin, "history")
    verified = ok_json(origin.get(f"/tables/{table_id}/verify", headers=ORGANISER))
    version = ok_json(origin.get(f"/tables/{table_id}"))["version"]

    head = ok_json(origin.get(f"/tables/{table_id}/deals/1", headers=ORGANISER))["head"]
    assert (head["version"], head["hash"]) == (version, verified["head"])
    assert head["key_id"] == key_id_of(ORIGIN_PUBLIC)
    assert signs(ORIGIN_PUBLIC, table_id, version, verified["head"], head["signature"])
    assert ok_json(origin.get(f"/tables/{table_id}/deals/1"))["head"] == head  # the public too

    text = origin.get(f"/tables/{table_id}/deals/1?format=text", headers=ORGANISER)
    found = re.search(
        r"^Head: version (\d+), hash ([0-9a-f]{64})\nSigned \(Ed25519, key ([0-9a-f]{16})\): "
        r"(\S+)$",
        text.get_data(as_text=True),
        re.MULTILINE,
    )
    assert found, text.get_data(as_text=True)
    assert (int(found[1]), found[2], found[3]) == (version, verified["head"], head["key_id"])
    assert signs(ORIGIN_PUBLIC, table_id, version, found[2], found[4])


def tournament_with_a_round(client: FlaskClient) -> str:
    body = {"name": "Signed night", "game": "bottle-imp", "table_size": 3, "target_score": None,
            "max_deals": 1, "rounds": 1, "pairing": "random", "seed": "signed"}  # fmt: skip
    response = client.post("/tournaments", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    tournament = str(response.get_json()["id"])
    for name in ("Ann", "Bo", "Cy"):
        entry = client.post(
            f"/tournaments/{tournament}/entries", json={"name": name}, headers=ORGANISER
        )
        assert entry.status_code == 201, entry.get_json()
    seated = client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER)
    assert seated.status_code == 201, seated.get_json()
    return tournament


def stored_hash(client: FlaskClient, stream: str, version: int) -> str:
    """The stream's hash at ``version``, read from the database itself."""
    with get_database(client.application).reading() as connection:
        found = connection.scalar(
            select(events.c.hash).where(events.c.stream == stream, events.c.version == version)
        )
    assert isinstance(found, str)
    return found


def test_standings_carry_the_tournaments_signed_head(origin: FlaskClient) -> None:
    tournament = tournament_with_a_round(origin)
    version = ok_json(origin.get(f"/tournaments/{tournament}"))["version"]
    head = ok_json(origin.get(f"/tournaments/{tournament}/standings"))["head"]
    expected = stored_hash(origin, tournament, version)
    assert (head["version"], head["hash"], head["key_id"]) == (
        version,
        expected,
        key_id_of(ORIGIN_PUBLIC),
    )
    assert signs(ORIGIN_PUBLIC, tournament, version, expected, head["signature"])

    page = origin.get(f"/tournaments/{tournament}/standings.html")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    shown = dict(re.findall(r'data-(version|hash|signature|key-id)="([^"]*)"', html))
    assert shown == {
        "version": str(version),
        "hash": expected,
        "signature": head["signature"],
        "key-id": head["key_id"],
    }
    assert head["signature"] in html.split("</table>")[1]  # printed, not only an attribute


# --- heads are signed when appended, never when read (issue 18, findings 2 and 3) ----------


def test_a_history_rewritten_in_the_database_is_never_signed_by_this_server(
    origin: FlaskClient, trusting: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ruling's points changed in the database and every hash after it and the head
    recomputed: the chain checks, but the signatures stored when each head was appended
    do not, so verify fails at the ruling, and neither an export nor a hand record comes
    out signed for the rewritten head."""
    table_id = ruled_table(origin, "rewritten")
    before = export_of(origin, table_id, reveal=True)
    engine = get_database(origin.application).engine
    ruling = next(r.version for r in stored(engine, table_id) if r.type == "Adjusted")
    rewrite_from(engine, table_id, ruling, {**RULING_DATA, "points": 90})

    report = ok_json(origin.get(f"/tables/{table_id}/verify", headers=ORGANISER))
    assert report["ok"] is False
    assert (report["problems"][0]["version"], report["problems"][0]["code"]) == (
        ruling, "bad_signature"
    )  # fmt: skip
    assert "broken_chain" not in {p["code"] for p in report["problems"]}

    header, items = lines_of(export_of(origin, table_id, reveal=True))
    assert header["head"] != lines_of(before)[0]["head"]  # the rewritten head...
    assert header["signature"] == lines_of(before)[0]["signature"]  # ...under the old word
    assert not signs(ORIGIN_PUBLIC, table_id, header["events"], header["head"],
                     header["signature"])  # fmt: skip
    body = assert_problem(import_file(trusting, text_of(header, items)), 422, "bad_signature")
    assert body["line"] == 1
    path = tmp_path / "rewritten.jsonl"
    path.write_text(text_of(header, items), encoding="utf-8")
    assert run_verify(capsys, path, "--key", ORIGIN_PUBLIC)[0] == 1

    history = origin.get(f"/tables/{table_id}/deals/1", headers=ORGANISER)
    assert history.status_code == 200
    head = history.get_json()["head"]  # the verified prefix's own stored head, not a new one
    assert head["version"] < ruling and signs(
        ORIGIN_PUBLIC, table_id, head["version"], head["hash"], head["signature"]
    )


def test_a_table_passed_off_as_an_unsigned_import_in_the_database_is_caught(
    origin: FlaskClient,
) -> None:
    """An import mark is attested by the server, so a table recorded here cannot be turned
    into an 'unsigned import' behind its back to escape the signed-head check."""
    table_id = ruled_table(origin, "passed-off")
    engine = get_database(origin.application).engine
    with engine.begin() as connection:
        connection.execute(
            insert(table_imports).values(
                table_id=table_id, signed=False, key_id=None, imported_at="2026-01-01T00:00:00Z"
            )
        )
    fresh = make_test_app(str(engine.url.render_as_string(hide_password=False)), migrate=False,
                          signing_key=ORIGIN_KEY)  # fmt: skip
    try:
        client = fresh.test_client()
        report = ok_json(client.get(f"/tables/{table_id}/verify", headers=ORGANISER))
        assert "unattested_import" in {p["code"] for p in report["problems"]}, report
        damaged = ok_json(client.get(f"/tables/{table_id}"))["damaged"]
        assert damaged["code"] == "unattested_import", damaged
    finally:
        get_database(fresh).engine.dispose()
