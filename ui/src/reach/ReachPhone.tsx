// Answer from the phone (issue 49), under Reach: pushes the board could answer carry Allow / Deny
// or the question's options, and a tap comes back through a reply topic on the ntfy server. Rust
// makes the reply topic (128 random bits) when the switch is first turned on, keeps the one
// subscription to it and checks every tap (src-tauri/engine/src/instance/act/phone.rs); this only
// shows the switch, the topic and the optional access token.
import { useState } from "react";
import type { Reach } from "../bindings/Reach";

export function PhoneAnswers({
  reach,
  disabled,
  onSave,
}: {
  reach: Reach;
  disabled: boolean;
  onSave(next: Reach): Promise<boolean>;
}) {
  const [token, setToken] = useState(reach.replyToken);
  // A newly saved token replaces the draft (adjusted while rendering, not in an effect).
  const [savedToken, setSavedToken] = useState(reach.replyToken);
  if (reach.replyToken !== savedToken) {
    setSavedToken(reach.replyToken);
    setToken(reach.replyToken);
  }
  const needsNtfy = !reach.ntfy.enabled;
  const commitToken = () => {
    if (token.trim() !== reach.replyToken) void onSave({ ...reach, replyToken: token.trim() });
  };

  return (
    <div className="push-channel" data-testid="phone-answers" data-enabled={reach.answerFromPhone}>
      <label
        className="decide-setting"
        title="Allow, Deny and a question's options as buttons in the ntfy push; a tap comes back through a reply topic"
      >
        <input
          type="checkbox"
          data-testid="phone-enabled"
          checked={reach.answerFromPhone}
          disabled={disabled || (needsNtfy && !reach.answerFromPhone)}
          onChange={(event) => void onSave({ ...reach, answerFromPhone: event.target.checked })}
        />
        Answer from the phone
      </label>
      {reach.answerFromPhone && reach.replyTopic && (
        <p className="decide-settings-note" data-testid="phone-topic">
          Reply topic: <code>{reach.replyTopic}</code> on the ntfy server above (its name works like a password).
        </p>
      )}
      {reach.answerFromPhone && (
        <input
          type="password"
          className="remote-input push-url"
          data-testid="phone-token"
          aria-label="Access token for the reply topic"
          placeholder="Access token (only for a server with access control)"
          autoComplete="off"
          spellCheck={false}
          value={token}
          disabled={disabled}
          onChange={(event) => setToken(event.target.value)}
          onBlur={commitToken}
          onKeyDown={(event) => {
            if (event.key === "Enter") commitToken();
          }}
        />
      )}
      <p className="decide-settings-note">
        {needsNtfy
          ? "Needs the ntfy push on."
          : "Buttons only where the board itself could answer; each works once, and a follow-up push says what came of it."}
      </p>
    </div>
  );
}
