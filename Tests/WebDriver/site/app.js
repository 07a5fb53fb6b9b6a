// The WebDriver suite's page: a form, dialogs, a link, an iframe (Tests/WebDriver/selenium_suite.py).
document.addEventListener('DOMContentLoaded', () => {
  const $ = (id) => document.getElementById(id);
  $('greet').addEventListener('click', () => { $('out').textContent = `Hello, ${$('name').value}!`; });
  $('alert').addEventListener('click', () => { alert('hello from the page'); $('answer').textContent = 'alert closed'; });
  $('confirm').addEventListener('click', () => { $('answer').textContent = confirm('Proceed?') ? 'confirmed' : 'refused'; });
});
