// Settings → Appearance: light, dark, or as the system says (theme.ts keeps and applies it).
import "./Appearance.css";
import { useTheme, type ThemeChoice } from "../state/theme";

const CHOICES: readonly { choice: ThemeChoice; label: string }[] = [
  { choice: "system", label: "As the system" },
  { choice: "light", label: "Light" },
  { choice: "dark", label: "Dark" },
];

export function AppearanceSettings() {
  const choice = useTheme((s) => s.choice);
  const choose = useTheme((s) => s.choose);
  return (
    <section className="appearance-settings" data-testid="appearance-settings" aria-label="Appearance">
      <h3 className="check-heading">
        <span className="check-name">Appearance</span>
      </h3>
      <div className="appearance-choices" role="radiogroup" aria-label="Theme">
        {CHOICES.map(({ choice: value, label }) => (
          <label key={value} className={value === choice ? "appearance-choice is-on" : "appearance-choice"}>
            <input
              type="radio"
              name="theme"
              value={value}
              data-testid={`theme-${value}`}
              checked={value === choice}
              onChange={() => choose(value)}
            />
            {label}
          </label>
        ))}
      </div>
    </section>
  );
}
