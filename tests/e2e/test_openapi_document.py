"""``/api/schema/`` and ``/api/docs/`` against a real `stalwart serve`: an
OpenAPI 3.1 document that validates and describes every route with its
errors, browsable with assets served locally under the strict CSP (issue 14)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
import yaml
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from stalwart_site.middleware import CSP
from tests.support.server import Server

pytestmark = pytest.mark.server

ROUTES = {  # the routes of docs/http-api.md
    ("post", "/threads/{thread_id}/messages"),
    ("get", "/threads/{thread_id}/stream"),
    ("post", "/threads/{thread_id}/rollback"),
    ("post", "/threads/{thread_id}/feedback"),
    ("get", "/threads/{thread_id}/interrupts"),
    ("post", "/threads/{thread_id}/resume"),
    ("post", "/plan"),
    ("get", "/healthz"),
    ("get", "/config.json"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("openapi")) as s:
        yield s


@pytest.fixture
def document(server) -> dict:
    response = httpx.get(f"{server.url}/api/schema/?format=json")
    assert response.status_code == 200
    assert "json" in response.headers["Content-Type"]
    return response.json()


def test_the_document_is_valid_openapi_3_1_and_lists_every_route(document):
    validate(document, cls=OpenAPIV31SpecValidator)
    assert document["openapi"].startswith("3.1")
    listed = {(method, path) for path, item in document["paths"].items() for method in item}
    assert listed == ROUTES


def test_every_operation_describes_its_body_answers_and_errors(document):
    schemas = document["components"]["schemas"]
    assert set(schemas["Error"]["required"]) == {"error", "detail"}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            answers = operation["responses"]
            assert "200" in answers and "500" in answers, (method, path)
            for status, answer in answers.items():
                if (path, status) == ("/threads/{thread_id}/stream", "200"):
                    assert list(answer["content"]) == ["text/event-stream"]
                    continue
                ref = answer["content"]["application/json"]["schema"]["$ref"]
                if status.startswith(("4", "5")):
                    assert ref == "#/components/schemas/Error", (method, path, status)
                    assert answer["description"], (method, path, status)
            if method == "post" and path != "/threads/{thread_id}/rollback":  # a rollback takes no body
                assert operation["requestBody"]["required"] is True
    messages = document["paths"]["/threads/{thread_id}/messages"]["post"]
    assert {"400", "404", "409", "413", "422"} <= set(messages["responses"])
    assert "Idempotency-Key" in [p["name"] for p in messages["parameters"]]
    resume = document["paths"]["/threads/{thread_id}/resume"]["post"]
    assert {"400", "401", "403", "404", "409", "422"} <= set(resume["responses"])
    assert "not_an_approver" in resume["responses"]["403"]["description"]
    recorded = resume["responses"]["202"]["content"]["application/json"]["schema"]["$ref"]
    assert recorded == "#/components/schemas/ApprovalRecorded"
    assert set(schemas["ApprovalRecorded"]["required"]) == {"status", "detail", "interrupt_id", "approvals"}
    assert schemas["ApprovalRecorded"]["properties"]["approvals"] == {"$ref": "#/components/schemas/Approvals"}
    assert schemas["Pause"]["properties"]["approvals"] == {"$ref": "#/components/schemas/Approvals"}
    assert set(schemas["Approvals"]["required"]) == {"needed", "given", "group"}
    body = schemas[resume["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]]
    assert set(body["required"]) == {"interrupt_id", "decision", "token"}
    pause = schemas["Pause"]
    assert {"id", "kind", "tool", "arguments", "choices", "token", "step"} <= set(pause["required"])


def test_yaml_is_the_default_and_says_the_same(server, document):
    response = httpx.get(f"{server.url}/api/schema/")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/vnd.oai.openapi")  # OpenAPI's YAML type
    assert response.text.startswith("openapi: 3.1")
    assert yaml.safe_load(response.text) == document


def test_the_docs_page_loads_its_assets_locally_under_the_strict_policy(server):
    with httpx.Client(base_url=server.url) as client:
        page = client.get("/api/docs/")
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        assert page.headers["Content-Security-Policy"] == CSP
        assert "<script>" not in page.text  # no inline script: the initialiser is a file of its own
        sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert sources and not [s for s in sources if s.startswith(("http:", "https:", "//"))]
        for source in sources:
            source = source.replace("&amp;", "&")
            assert client.get(source if source.startswith("/") else f"/api/docs/{source}").status_code == 200, source
