/** The two HTML documents: the sign-in form and the app's shell (the app script draws the pages). */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function document(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · modelgate</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/uplot.css">
<link rel="stylesheet" href="/dashboard/assets/app.css">
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

export function loginPage(message: string | undefined): string {
  const notice = message === undefined ? '' : `<p class="notice" role="alert">${escapeHtml(message)}</p>`;
  return document(
    'Sign in',
    `<main class="login">
<h1>modelgate</h1>
<form method="post" action="/dashboard/login">
<label for="key">Admin key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
${notice}
<button type="submit">Sign in</button>
<p class="hint">The admin key is <code>MODELGATE_ADMIN_KEY</code>; client keys do not sign in here.</p>
</form>
</main>`,
  );
}

const navigation = [
  ['overview', 'Overview'],
  ['usage', 'Usage & spend'],
  ['keys', 'Keys'],
  ['models', 'Models'],
  ['requests', 'Requests'],
  ['tail', 'Live tail'],
] as const;

export function appPage(csrf: string): string {
  const links = navigation
    .map(([page, title]) => `<a href="#${page}" data-page="${page}">${title}</a>`)
    .join('\n');
  return document(
    'Dashboard',
    `<header>
<span class="brand">modelgate</span>
<nav>
${links}
</nav>
<button id="sign-out" type="button">Sign out</button>
</header>
<main id="main"></main>
<script src="/dashboard/assets/uplot.js"></script>
<script src="/dashboard/assets/app.js"></script>`,
    `<meta name="csrf-token" content="${escapeHtml(csrf)}">`,
  );
}
