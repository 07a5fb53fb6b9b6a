document.addEventListener('DOMContentLoaded', () => {
  document.getElementById('inner').addEventListener('click', () => { document.getElementById('state').textContent = 'clicked'; });
});
