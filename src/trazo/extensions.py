"""Extension objects, created unbound; create_app() binds them to an application."""
from authlib.integrations.flask_client import OAuth
from flask_babel import Babel
from flask_cors import CORS
from flask_jwt_extended import JWTManager
from flask_limiter import Limiter
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

from .errors import Api
from .models.base import Base
from .ratelimit import client_address

db = SQLAlchemy(model_class=Base)
migrate = Migrate()
api = Api()
jwt = JWTManager()
limiter = Limiter(key_func=client_address)
babel = Babel()
cors = CORS()
oauth = OAuth()
