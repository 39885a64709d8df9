-- Neovim's built-in LSP client (0.7 and later) driving torch-clangd, as an
-- editor user would: open the file, wait for clangd's diagnostics, ask for
-- the code actions of one libtorch warning, apply its quick fix through
-- Neovim's own workspace-edit code, and wait for the diagnostics of the
-- edited buffer. Everything Neovim received is written to $NVIM_TEST_OUT
-- for FileCheck. Run by test/clangd/neovim.test:
--   nvim --headless --clean -n -i NONE FILE -c 'luafile nvim_lsp.lua'
-- Environment: NVIM_TEST_CLANGD (the server), NVIM_TEST_ROOT (project root,
-- compile_commands.json in its build/), NVIM_TEST_OUT, NVIM_TEST_LINE (the
-- line of the warning whose fix to apply), NVIM_TEST_TIMEOUT (s per wait).
local out = assert(io.open(os.getenv('NVIM_TEST_OUT'), 'w'))
local function log(fmt, ...)
  out:write(string.format(fmt, ...) .. '\n')
  out:flush()
end
local timeout = tonumber(os.getenv('NVIM_TEST_TIMEOUT') or '300') * 1000
local fix_line = tonumber(os.getenv('NVIM_TEST_LINE'))
local root = os.getenv('NVIM_TEST_ROOT')

local function finish(code)
  for _, c in pairs(vim.lsp.get_active_clients()) do
    c.stop()
  end
  vim.wait(5000, function()
    return #vim.lsp.get_active_clients() == 0
  end, 100)
  out:close()
  vim.cmd(code == 0 and 'qa!' or ('cquit ' .. code))
end

local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'torch-clangd',
  cmd = { os.getenv('NVIM_TEST_CLANGD'), '--compile-commands-dir=' .. root .. '/build' },
  root_dir = root,
})
if not client_id then
  log('error: the client did not start')
  return finish(1)
end
vim.lsp.buf_attach_client(bufnr, client_id)
log('client started: %s', os.getenv('NVIM_TEST_CLANGD'))

-- The libtorch diagnostics Neovim holds for the buffer, by line.
local function libtorch_diagnostics()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if type(d.code) == 'string' and d.code:find('^libtorch%-') then
      table.insert(found, d)
    end
  end
  table.sort(found, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  return found
end
local function log_diagnostics(what, diags)
  log('%s: %d libtorch diagnostics', what, #diags)
  for _, d in ipairs(diags) do
    log('  %d:%d [%s] %s', d.lnum + 1, d.col + 1, d.code, d.message)
  end
end

local t0 = vim.loop.hrtime()
if not vim.wait(timeout, function()
  return #libtorch_diagnostics() > 0
end, 100) then
  log('error: no libtorch diagnostics within %d s', timeout / 1000)
  return finish(1)
end
local first = libtorch_diagnostics()
log_diagnostics('opened', first)

-- The code actions of the warning on NVIM_TEST_LINE.
local target
for _, d in ipairs(first) do
  if d.lnum + 1 == fix_line then
    target = d
  end
end
if not target then
  log('error: no libtorch diagnostic on line %d', fix_line)
  return finish(1)
end
-- As vim.lsp.buf.code_action() does: the cursor on the warning, the range
-- there, the line's diagnostics in LSP form (Neovim 0.9 and later keep the
-- whole LSP diagnostic in user_data.lsp; 0.7 has get_line_diagnostics).
vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
local params = vim.lsp.util.make_range_params()
local lsp_diag = target.user_data and target.user_data.lsp
if lsp_diag and lsp_diag.range then
  params.context = { diagnostics = { lsp_diag } }
else
  params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr) }
end
local responses, err = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, timeout)
if not responses then
  log('error: textDocument/codeAction: %s', tostring(err))
  return finish(1)
end
local chosen
for _, response in pairs(responses) do
  if response.err then
    log('error: textDocument/codeAction: %s', vim.inspect(response.err))
  end
  for _, action in ipairs(response.result or {}) do
    log('code action: %s (kind %s%s)', action.title, tostring(action.kind),
      action.isPreferred and ', preferred' or '')
    if action.edit and (chosen == nil or action.isPreferred) then
      chosen = action
    end
  end
end
if not chosen then
  log('error: no code action with an edit')
  return finish(1)
end
local client = vim.lsp.get_client_by_id(client_id)
vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
log('applied: %s', chosen.title)
for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
  if line:find('TORCHTIDY_CHECK_INDEX') or line:find('torchtidy/check.h') then
    log('  line %d: %s', i, line)
  end
end

-- clangd answers the edit with new diagnostics for the new version: the
-- fixed warning is gone, the others stay.
local before = #first
if not vim.wait(timeout, function()
  return #libtorch_diagnostics() == before - 1
end, 100) then
  log('error: the diagnostics did not follow the edit within %d s', timeout / 1000)
  log_diagnostics('after the edit', libtorch_diagnostics())
  return finish(1)
end
log_diagnostics('after the edit', libtorch_diagnostics())
log('done in %.1f s', (vim.loop.hrtime() - t0) / 1e9)
finish(0)
