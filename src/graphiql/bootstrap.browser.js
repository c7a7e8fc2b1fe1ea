// Starts GraphiQL from the options the page carries as JSON (#graphiql-config), so the page needs
// no inline script. Runs before the GraphiQL bundle: the editor reads MonacoEnvironment as it loads.
(() => {
  const config = JSON.parse(document.getElementById('graphiql-config').textContent);

  // The editor and its popups add <style> elements at run time; the page's policy admits them by
  // this response's nonce (style-src 'nonce-…'), so each one created here carries it.
  const nonce = config.styleNonce;
  if (nonce) {
    window.__webpack_nonce__ = nonce;
    const createElement = Document.prototype.createElement;
    Document.prototype.createElement = function (tagName, ...options) {
      const element = createElement.call(this, tagName, ...options);
      if (String(tagName).toLowerCase() === 'style') element.setAttribute('nonce', nonce);
      return element;
    };
  }

  // Web workers load from the gateway by URL (worker-src 'self'), not from blob: URLs.
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: (_moduleId, label) => config.workers[label] || config.workers.editorWorkerService,
  };

  document.addEventListener('DOMContentLoaded', () => {
    window.YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), config.options);
  });
})();
