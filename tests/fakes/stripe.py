"""The one Stripe fake: a Stripe-shaped HTTP API on 127.0.0.1 (a FakeService) with form-encoded requests,
JSON objects with id/object, error bodies {"error": {...}} and Bearer secret keys. Keeps what it is told and
what it was asked: `calls` (method, path, the nested form, the query, the Authorization header) for the
billing tests, `requests`/`received()` (the raw requests) like every FakeService. The billing tests and the
client replay configure it through the STRIPE_* settings (key SECRET_KEY); the payment vendor tests of the
integrations area reset it with a key of their own (`reset(secret_key=...)`)."""
import hashlib
import hmac
import itertools
import re
import threading
import time
from urllib.parse import parse_qsl, unquote

from .base import FakeService, Reply

SECRET_KEY = "sk_test_trazo"
WEBHOOK_SECRET = "whsec_trazo_test"
PREFIXES = {"products": "prod", "prices": "price", "checkout/sessions": "cs_test", "billing_portal/sessions": "bps",
            "subscriptions": "sub", "invoices": "in", "customers": "cus"}
OBJECTS = {"products": "product", "prices": "price", "checkout/sessions": "checkout.session",
           "billing_portal/sessions": "billing_portal.session", "subscriptions": "subscription",
           "invoices": "invoice"}


def sign(payload, secret=WEBHOOK_SECRET, timestamp=None):
    """A Stripe-Signature header for `payload` (bytes)."""
    timestamp = int(time.time()) if timestamp is None else int(timestamp)
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def _value(raw):
    return {"true": True, "false": False}.get(raw, int(raw) if raw.isdigit() else raw)


def nested(form):
    """Stripe's bracketed form keys (a[b][0][c]=v) as nested dicts (list indexes stay string keys)."""
    result = {}
    for key, raw in form.items():
        parts = re.findall(r"[^\[\]]+", key)
        target = result
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = _value(raw)
    return result


def _first_values(encoded):
    """A form or query string as a dict, the first value of each key kept (blank values too)."""
    values = {}
    for key, value in parse_qsl(encoded, keep_blank_values=True):
        values.setdefault(key, value)
    return values


def _is_form(request):
    return request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded")


class FakeStripe(FakeService):
    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.reset()

    def reset(self, secret_key=SECRET_KEY):
        """Forget every object, call, failure and delay; `secret_key` is the one key accepted from now on."""
        with self.lock:
            self.objects = {collection: {} for collection in PREFIXES}
            self.calls = []
            self.requests.clear()
            self.failures = {}
            self.delays = {}
            self.secret_key = secret_key
            self.keys = {secret_key}
            self._ids = itertools.count(1)

    # -- test controls -----------------------------------------------------------------------

    def fail(self, method, path, status=402, message="Your card was declined.", code=None):
        """Answer `method path` (path prefix) with a Stripe error from now on."""
        self.failures[(method, path)] = (status, {"error": {"type": "invalid_request_error", "message": message,
                                                            "code": code}})

    def delay(self, method, path, seconds):
        self.delays[(method, path)] = seconds

    def add(self, collection, obj):
        obj.setdefault("object", OBJECTS.get(collection, collection))
        with self.lock:
            self.objects[collection][obj["id"]] = obj
        return obj

    def subscription(self, sub_id, customer, status="active", product=None, start=None, end=None, **extra):
        """A subscription in the current API shape (periods on the item)."""
        start = start or int(time.time())
        end = end or start + 30 * 86400
        item = {"id": f"si_{sub_id}", "object": "subscription_item", "current_period_start": start,
                "current_period_end": end, "price": {"id": "price_x", "object": "price", "product": product}}
        return self.add("subscriptions", {"id": sub_id, "customer": customer, "status": status,
                                          "cancel_at_period_end": False, "cancel_at": None, "start_date": start,
                                          "items": {"object": "list", "data": [item]}, "metadata": {}, **extra})

    def requests_to(self, method, path):
        return [call for call in self.calls if call["method"] == method and call["path"] == path]

    # -- the API ----------------------------------------------------------------------------

    def _error(self, status, message, code=None, error_type="invalid_request_error"):
        return Reply(status, {"error": {"type": error_type, "message": message, "code": code}})

    def answer(self, request):
        form = nested(_first_values(request.body.decode()) if _is_form(request) else {})
        args = _first_values(request.query_string)
        path = unquote(request.path)
        authorization = request.headers.get("authorization")
        with self.lock:
            self.calls.append({"method": request.method, "path": path, "form": form, "query": dict(args),
                               "key": authorization})
        for (method, prefix), seconds in self.delays.items():
            if request.method == method and path.startswith(prefix):
                time.sleep(seconds)
        if (authorization or "").removeprefix("Bearer ") not in self.keys:
            return self._error(401, "Invalid API Key provided", error_type="authentication_error")
        for (method, prefix), (status, body) in self.failures.items():
            if request.method == method and path.startswith(prefix):
                return Reply(status, body)
        if path == "/v1/balance":
            return self._json({"object": "balance", "available": []})
        for collection in PREFIXES:
            match = re.fullmatch(rf"/v1/{collection}(?:/(?P<object_id>\w+))?", path)
            if match:
                return self._route(request.method, collection, match["object_id"], form, args)
        return self._error(404, f"Unrecognized request URL ({request.method}: {path})")

    def _json(self, obj):
        return Reply(200, obj)

    def _route(self, method, collection, object_id, form, args):
        store = self.objects[collection]
        if object_id is None and method == "POST":
            return self._json(self.add(collection, self._created(collection, form)))
        if object_id is None and method == "GET":
            found = [obj for obj in store.values() if all(obj.get(k) == v for k, v in args.items() if k != "limit")]
            found.sort(key=lambda obj: obj.get("created", 0), reverse=True)
            return self._json({"object": "list", "data": found[:int(args.get("limit", 10))], "has_more": False})
        obj = store.get(object_id)
        if obj is None:
            return self._error(404, f"No such {OBJECTS[collection]}: '{object_id}'", code="resource_missing")
        if method == "POST":
            obj.update(form)
            if collection == "subscriptions" and form.get("cancel_at_period_end"):
                obj["cancel_at"] = obj["items"]["data"][0]["current_period_end"]
        elif method == "DELETE" and collection == "subscriptions":
            obj.update(status="canceled", canceled_at=int(time.time()))
        return self._json(obj)

    def _created(self, collection, form):
        obj_id = f"{PREFIXES[collection]}_{next(self._ids)}"
        obj = {"id": obj_id, "created": int(time.time()), "active": True, **form}
        if collection == "checkout/sessions":
            obj["url"] = f"https://checkout.stripe.test/c/pay/{obj_id}"
        if collection == "billing_portal/sessions":
            obj["url"] = f"https://billing.stripe.test/p/session/{obj_id}"
        return obj
