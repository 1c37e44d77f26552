import { PrimeReactProvider } from "primereact/api";
import { Button } from "primereact/button";
import { InputText } from "primereact/inputtext";
import { Message } from "primereact/message";
import { type FormEvent, useEffect, useState } from "react";
import { signIn } from "../../lib/session.ts";
import { pageTitle } from "../../lib/pageTitle.ts";
import { PRODUCT_TITLE } from "../../lib/title.ts";
import { type LoginErrors, signInFailure, validateLogin } from "./validation.ts";

export interface LoginScreenProps {
  /** Signs in; rejects on any failure. Defaults to the session's signIn. */
  onSignIn?: (email: string, password: string) => Promise<void>;
}

/** Login: the only thing shown while there is no valid token. */
export default function LoginScreen({ onSignIn = signIn }: LoginScreenProps) {
  const [email, setEmail] = useState("");
  useEffect(() => {
    document.title = pageTitle("Sign in");
  }, []);
  const [password, setPassword] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const errors: LoginErrors = submitted ? validateLogin(email, password) : {};

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    setFailed(null);
    const found = validateLogin(email, password);
    if (found.email || found.password) {
      document.getElementById(found.email ? "login-email" : "login-password")?.focus();
      return;
    }
    setBusy(true);
    try {
      await onSignIn(email.trim(), password);
    } catch (err) {
      setFailed(signInFailure(err));
      setBusy(false);
    }
  }

  return (
    <PrimeReactProvider value={{ ripple: false }}>
      <main className="login-page">
        <form className="login-card" onSubmit={submit} noValidate aria-labelledby="login-title">
          <div className="login-brand">
            <i className="pi pi-bolt" aria-hidden="true" />
            <h1 id="login-title">{PRODUCT_TITLE}</h1>
          </div>
          <div className="field">
            <label htmlFor="login-email">E-mail</label>
            <InputText
              id="login-email"
              type="email"
              autoComplete="username"
              autoFocus
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              invalid={!!errors.email}
              aria-invalid={!!errors.email}
              aria-describedby={errors.email ? "login-email-error" : undefined}
            />
            {errors.email && <small id="login-email-error" className="p-error">{errors.email}</small>}
          </div>
          <div className="field">
            <label htmlFor="login-password">Password</label>
            <InputText
              id="login-password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              invalid={!!errors.password}
              aria-invalid={!!errors.password}
              aria-describedby={errors.password ? "login-password-error" : undefined}
            />
            {errors.password && <small id="login-password-error" className="p-error">{errors.password}</small>}
          </div>
          {failed && <Message severity="error" text={failed} role="alert" />}
          <Button type="submit" label="Sign in" icon="pi pi-sign-in" loading={busy} disabled={busy} />
        </form>
      </main>
    </PrimeReactProvider>
  );
}
