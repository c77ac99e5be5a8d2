import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_h_modules_0_modules_ln_2_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_h_modules_0_modules_ln_2_parameters_bias_: torch.nn.parameter.Parameter, dropout: torch.Tensor, dropout_2: torch.Tensor):
        l_self_modules_h_modules_0_modules_ln_2_parameters_weight_ = L_self_modules_h_modules_0_modules_ln_2_parameters_weight_
        l_self_modules_h_modules_0_modules_ln_2_parameters_bias_ = L_self_modules_h_modules_0_modules_ln_2_parameters_bias_
        add_5 = dropout_2 + dropout;  dropout_2 = dropout = None
        layer_norm_1 = torch.nn.functional.layer_norm(add_5, (128,), l_self_modules_h_modules_0_modules_ln_2_parameters_weight_, l_self_modules_h_modules_0_modules_ln_2_parameters_bias_, 1e-05);  l_self_modules_h_modules_0_modules_ln_2_parameters_weight_ = l_self_modules_h_modules_0_modules_ln_2_parameters_bias_ = None
        view_8 = layer_norm_1.view(-1, 128);  layer_norm_1 = None
        return (add_5, view_8)
