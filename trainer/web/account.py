"""``/account/password``: a logged-in director or learner gives themselves a new password.

Every login of the account ends with it (other browsers, copied cookies, remember cookies, a director's
API tokens); this browser is logged in again at once (trainer.core.accounts).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from werkzeug.security import check_password_hash

from ..core import accounts
from ..core.accounts import Director, Learner
from ..core.errors import Refused
from ..http.ratelimit import limited, refused_guess
from .auth import log_in, logged_in_director, logged_in_learner
from .forms import PasswordForm
from .messages import game_message

bp = Blueprint("account", __name__, url_prefix="/account")


def _account() -> Director | Learner | None:
    return logged_in_director() or logged_in_learner()


@bp.route("/password", methods=["GET", "POST"])
@limited("password")
def password() -> ResponseReturnValue:
    account = _account()
    if account is None:
        return redirect(url_for("pages.index"), code=303)
    form = PasswordForm()
    if form.validate_on_submit():
        if not check_password_hash(account.password_hash, form.current.data or ""):
            form.current.errors = [_("This is not your current password.")]
            refused_guess()  # counted against the account: a stolen login cannot try password after password
        elif form.new.data != form.again.data:
            form.again.errors = [_("The two new passwords differ.")]
        else:
            try:
                accounts.change_password(account, form.new.data)
            except Refused as error:
                form.new.errors = [game_message(error)]
            else:
                log_in(account)  # this browser stays logged in, with a new login
                flash(_("Your password is changed. Every other login of your account has ended."), "info")
                home = "director.games" if isinstance(account, Director) else "study.decks"
                return redirect(url_for(home), code=303)
    status = 200 if request.method == "GET" else 400
    return render_template("account/password.html", form=form, name=account.username), status
