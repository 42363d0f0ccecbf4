/** The one button of the window, in three tones. */
export function Button({
  testId,
  onClick,
  children,
  tone = "plain",
  disabled,
  type = "button",
}: {
  testId: string;
  onClick?: () => void;
  children: React.ReactNode;
  tone?: "plain" | "primary" | "danger";
  disabled?: boolean;
  type?: "button" | "submit";
}) {
  const tones = {
    plain: "border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800",
    primary: "border-indigo-600 bg-indigo-600 text-white hover:bg-indigo-700",
    danger: "border-red-300 text-red-700 hover:bg-red-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950",
  };
  return (
    <button
      type={type}
      data-testid={testId}
      onClick={onClick}
      disabled={disabled}
      className={`shrink-0 whitespace-nowrap rounded-md border px-3 py-1 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-50 ${tones[tone]}`}
    >
      {children}
    </button>
  );
}
