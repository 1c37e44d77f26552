import type { Context } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { LoginBody } from "../../shared/schemas/auth.ts";
import { clientAddress } from "../auth/client_address.ts";
import { dummyHash } from "../auth/password.ts";
import { checkPassword, type CheckResult } from "../auth/throttle.ts";
import { busy, hashOrBusy, tooMany } from "../auth/too_many.ts";
import { issueToken } from "../auth/tokens.ts";
import { knownBrowserOf, markBrowser } from "../auth/known_browser.ts";
import { operatorActor } from "../auth/middleware.ts";
import { runAs } from "../db/audit_context.ts";
import { operatorTarget } from "../db/rules/operators.ts";
import type { AppContext } from "../context.ts";
import { ApiHttpError, badRequest } from "../errors.ts";
import { jsonBody, TextRuleError } from "../validate.ts";
import { type Api, mount } from "../mount.ts";
import { escapeText } from "../../shared/text_rule.ts";

const invalidCredentials = () => new ApiHttpError(401, "invalid_credentials", "Invalid email address or password.");

/** The answer to a throttled or unchecked attempt; null when the password was checked. */
function refusal(c: Context, result: CheckResult, tooManyWhat: string, from = "your address"): ApiHttpError | null {
  switch (result.kind) {
    case "busy":
      return busy(c);
    case "wait":
      return tooMany(
        c,
        result.waitMs,
        (wait) =>
          result.reason === "account"
            ? `Too many failed sign-ins for this e-mail address from new places; try again in ${wait}, or from a browser or network you have signed in from before.`
            : `${tooManyWhat} from ${from}; try again in ${wait}.`,
      );
    default:
      return null;
  }
}

/** POST login is public; POST change_password runs behind the operator middleware. */
export function authRoutes(api: Api, ctx: AppContext) {
  // The body is read here: one that breaks the text rule is still a sign-in attempt (throttled and audited).
  mount(api, routes.login, async (c) => {
    let body: LoginBody;
    // An e-mail or password that breaks the text rule (docs/REQUIREMENTS.md §17) names no operator, but the attempt is a
    // security event: it goes through the throttle and is audited like any unknown e-mail, the e-mail escaped.
    let strange = false;
    try {
      body = await jsonBody(c, routes.login.body.schema);
    } catch (err) {
      const parsed = err instanceof TextRuleError ? routes.login.body.schema.safeParse(err.value) : null;
      if (!parsed?.success) throw invalidCredentials();
      body = { email: escapeText(parsed.data.email), password: parsed.data.password };
      strange = true;
    }
    const operator = strange ? null : await ctx.stores.operators.find(body.email);
    const address = clientAddress(c, ctx.config.trustProxy);
    // A browser holding this operator's known-browser mark is counted on its own (docs/REQUIREMENTS.md §19).
    const browser = operator ? knownBrowserOf(c, ctx.secret, operator) : null;
    const result = await checkPassword(
      ctx.stores.loginAttempts,
      browser
        ? { scope: "known_browser", email: body.email, address: browser }
        : { scope: "login", email: body.email, address },
      body.password,
      async () => operator?.passwordHash ?? await dummyHash,
    );
    const refused = refusal(
      c,
      result,
      "Too many failed sign-ins for this e-mail address",
      browser ? "this browser" : "your address",
    );
    if (refused) throw refused;
    // A disabled account is refused like a wrong password: the answer tells a guesser nothing. The trail records
    // the e-mail tried, the account when there is one, and why, never the password (docs/DECISIONS.md).
    if (!operator || operator.disabled || result.kind !== "right") {
      const tried = body.email.trim();
      await runAs(
        { actor: { type: "operator", id: operator?.id ?? "", name: tried }, ip: address },
        () =>
          ctx.stores.audit.record({
            action: "auth.sign_in_failed",
            target: operator ? operatorTarget(operator) : null,
            details: {
              email: tried,
              ...(strange ? { escaped: true } : {}),
              reason: !operator ? "unknown_email" : operator.disabled ? "disabled" : "wrong_password",
            },
          }),
      );
      throw invalidCredentials();
    }
    await runAs(
      { actor: operatorActor(operator), ip: address },
      () => ctx.stores.audit.record({ action: "auth.sign_in", target: operatorTarget(operator) }),
    );
    markBrowser(c, ctx.secret, operator, ctx.config.trustProxy);
    const token = await issueToken(
      ctx.secret,
      operator.email,
      operator.passwordVersion,
      ctx.config.TOKEN_TTL_SECONDS,
    );
    return c.json({ token });
  }, { ownBody: true });
  mount(api, routes.changePassword, async (c, { body }) => {
    const operator = c.get("operator");
    const result = await checkPassword(
      ctx.stores.loginAttempts,
      { scope: "change_password", email: operator.email, address: clientAddress(c, ctx.config.trustProxy) },
      body.old_password,
      () => Promise.resolve(operator.passwordHash),
    );
    const refused = refusal(c, result, "Too many wrong current passwords");
    if (refused) throw refused;
    if (result.kind !== "right") throw badRequest("Current password is incorrect.");
    await ctx.stores.operators.setPassword(operator.email, await hashOrBusy(c, body.new_password));
    return c.json({});
  });
}
