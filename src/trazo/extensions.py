"""Extension objects, created unbound; create_app() binds them to an application.

Nothing here imports the application but the models' declarative base (a leaf that imports SQLAlchemy
only), so every module may import this one. What configures an extension lives above it: the JWT
loaders in auth.py, the limiter's 429 answer in ratelimit.py, our flask-smorest Api in web/docs.py.
"""
from flask_babel import Babel
from flask_cors import CORS
from flask_jwt_extended import JWTManager
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

from .models.base import Base

db = SQLAlchemy(model_class=Base)
migrate = Migrate()
jwt = JWTManager()
# Limits key by the caller's address (ProxyFix has applied TRUSTED_PROXY_COUNT) unless they name another key.
limiter = Limiter(key_func=get_remote_address)
babel = Babel()
cors = CORS()
